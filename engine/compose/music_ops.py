"""The composition operations that write notes: voice (the harmony track, by the engine's
whole-progression voicing search), arrange (pattern, bass and drums, by ``conduct`` over the
composition's own form) and add_notes (a melody or a fill)."""

from __future__ import annotations

from itertools import accumulate
from typing import Any

from engine.chords import parse
from engine.compose.ir import PPQ, Composition, by_id, chord_spans, meter, section_ticks
from engine.conduct import conduct
from engine.errors import InvalidRequest
from engine.requests import MAX_PROGRESSION
from engine.voicing import STYLE_NAMES, voice_progression

Args = dict[str, Any]
# Track defaults by role: (id, General MIDI program, channel).
TRACKS = {"harmony": ("harmony", 0, 0), "pattern": ("pattern", 26, 1), "bass": ("bass", 32, 2),
          "drums": ("drums", 0, 9), "melody": ("melody", 65, 3)}
STYLE_WORDS = {"swing": "medium swing", "bossa_nova": "bossa nova", "ballad": "ballad",
               "jazz_waltz": "jazz waltz", "funk": "funk", "samba": "samba",
               "shuffle_blues": "shuffle blues", "rock_pop": "rock", "gospel": "gospel",
               "modal_vamp": "modal vamp"}


def voice(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    style = args.get("style") or "rootless"
    if style not in STYLE_NAMES:
        raise InvalidRequest(f"'style' must be one of {', '.join(STYLE_NAMES)}",
                             field="style")
    sections = by_id(comp)
    wanted = args.get("sections") or list(dict.fromkeys(comp["form"]))
    if not isinstance(wanted, list) or any(s not in sections for s in wanted):
        raise InvalidRequest("'sections' must list section ids of the composition",
                             field="sections")
    # The search runs over the form in order, so voicings lead across section boundaries;
    # each section keeps the voicings of its first time through.
    order = [sid for sid in comp["form"] if sid in wanted]
    if not order:
        raise InvalidRequest("none of those sections is in the form", field="sections")
    spans = [(sid, span) for sid in order for span in chord_spans(comp, sections[sid])]
    if not spans:
        raise InvalidRequest("those sections have no chords", field="sections")
    # each section's first chord starts a phrase: the voicing may move its register there
    counts = [len(chord_spans(comp, sections[sid])) for sid in order]
    starts = list(accumulate(counts))[:-1]
    voiced = voice_progression([parse(span[2]) for _, span in spans], style, 48, 84,
                               starts=starts)
    track = _track(comp, "harmony")
    done: set[str] = set()
    position = 0
    for sid in order:
        count = len(chord_spans(comp, sections[sid]))
        if sid not in done:
            track["events"][sid] = [[tick, length, pitch, 70]
                                    for (_, (tick, length, _)), notes
                                    in zip(spans[position:position + count],
                                           voiced[position:position + count], strict=True)
                                    for pitch in notes]
            done.add(sid)
        position += count
    return comp, {"style": style, "sections": sorted(done), "chords": len(spans)}


def arrange(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    style = args.get("style") or comp["meta"]["style"]
    if style not in STYLE_WORDS:
        raise InvalidRequest(f"'style' must be one of {', '.join(STYLE_WORDS)}", field="style")
    seed = args.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidRequest("'seed' must be a whole number", field="seed")
    sections = by_id(comp)
    if not comp["form"]:
        raise InvalidRequest("the composition has no form to arrange", field="style")
    bars: list[list[str]] = []
    for sid in comp["form"]:
        section = sections[sid]
        per_bar: list[list[str]] = [[] for _ in range(section["bars"])]
        for chord in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"])):
            per_bar[chord["bar"] - 1].append(chord["symbol"])
        for symbols in per_bar:  # a bar without a chord holds the one before
            bars.append(symbols or (bars[-1][-1:] if bars else ["NC"]))
    chords = sum(len(b) for b in bars)
    if chords > MAX_PROGRESSION:
        # conduct's own refusal named its 'progression', a field this request never had
        raise InvalidRequest(f"arrange plays the form through conduct, which takes at most "
                             f"{MAX_PROGRESSION} chords; this form plays {chords} (arrange a "
                             "shorter form, then set the whole one)")
    meta = comp["meta"]
    # The arrangement keeps the written form: a form that ends on its turnaround leads back to
    # the top, and conduct's added ending would lengthen it (it refused every such AABA).
    prompt = (f"{STYLE_WORDS[style]} in {meta['key']}, {len(bars)} bars, "
              f"{round(meta['tempo'])} bpm, {meta['timeSignature']}, no ending")
    result = conduct({"prompt": prompt, "progression": " | ".join(" ".join(b) for b in bars),
                      "seed": seed})
    if result["conductor"]["bars"] != len(bars):
        raise InvalidRequest(f"the {style} arrangement could not keep the form's {len(bars)} "
                             "bars", field="style")
    # Each section keeps the lanes of its first time through the form.
    starts: dict[str, int] = {}
    tick = 0
    for sid in comp["form"]:
        starts.setdefault(sid, tick)
        tick += section_ticks(comp, sections[sid])
    written = []
    for lane in ("pattern", "bass", "drums"):
        track = _track(comp, lane)
        for sid, start in starts.items():
            end = start + section_ticks(comp, sections[sid])
            track["events"][sid] = [[n["tick"] - start, n["duration"], n["pitch"], n["velocity"]]
                                    for n in result["lanes"][lane] if start <= n["tick"] < end]
        written.append(lane)
    return comp, {"style": style, "tracks": written, "bars": len(bars)}


def add_notes(comp: Composition, args: Args) -> tuple[Composition, dict[str, Any]]:
    sections = by_id(comp)
    sid = args.get("section")
    if sid not in sections:
        raise InvalidRequest(f"'section' names no section: {sid!r}", field="section")
    section = sections[sid]
    role = args.get("role") or "melody"
    if role not in TRACKS:
        raise InvalidRequest(f"'role' must be one of {', '.join(TRACKS)}", field="role")
    track_id = args.get("track") or TRACKS[role][0]
    if not isinstance(track_id, str):
        raise InvalidRequest("'track' must be a track id", field="track")
    notes = args.get("notes")
    if not isinstance(notes, list) or not notes:
        raise InvalidRequest("'notes' must be a non-empty list", field="notes")
    top, bottom = meter(section.get("timeSignature") or comp["meta"]["timeSignature"],
                        "timeSignature")
    beat = PPQ * 4 // bottom
    rows = []
    for i, note in enumerate(notes):
        if isinstance(note, list):
            rows.append(note)
            continue
        if not isinstance(note, dict):
            raise InvalidRequest(f"notes[{i}] must be [tick, duration, pitch, velocity] or "
                                 "{bar, beat, duration, pitch, velocity}", field=f"notes[{i}]")
        try:
            tick = round((note["bar"] - 1) * top * beat + (note["beat"] - 1) * beat)
            rows.append([tick, round(note.get("duration", 1) * beat), note["pitch"],
                         note.get("velocity", 90)])
        except (KeyError, TypeError):
            raise InvalidRequest(f"notes[{i}] needs bar, beat and pitch (numbers)",
                                 field=f"notes[{i}]") from None
    track = _track(comp, role, track_id)
    track["events"].setdefault(sid, []).extend(rows)
    track["events"][sid].sort()
    return comp, {"track": track["id"], "section": sid, "added": len(rows)}


def _track(comp: Composition, role: str, track_id: str | None = None) -> dict[str, Any]:
    default_id, program, channel = TRACKS[role]
    tid = track_id or default_id
    for track in comp["tracks"]:
        if track["id"] == tid:
            return track
    track = {"id": tid, "role": role, "program": program, "channel": channel, "events": {}}
    comp["tracks"].append(track)
    return track
