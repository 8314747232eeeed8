"""A music file's bytes to the request ``identify`` reads (API.md 17), for the callers that
read files (``harmony analyze-file``, ``harmony-mcp``'s ``path``): a MIDI file as ``midi``
(base64), a MusicXML file as ``musicxml`` text, a compressed MusicXML file (``.mxl``)
unpacked. No file is opened here: the caller reads the bytes."""

from __future__ import annotations

import base64
import io
import posixpath
import xml.etree.ElementTree as ET
import zipfile

from engine.errors import InvalidRequest

MAX_FILE_BYTES = 1 << 20   # API.md 9: a body of 1 MiB at most
MIDI_SUFFIXES = (".mid", ".midi", ".smf")
MUSICXML_SUFFIXES = (".musicxml", ".xml", ".mxl")
_ZIP = b"PK\x03\x04"
_CONTAINER = "META-INF/container.xml"


def music_request(data: bytes, name: str, field: str = "file") -> dict[str, str]:
    """The identify request of a music file's bytes: ``{"midi": base64}`` for a MIDI file (by
    its name's suffix, ``MIDI_SUFFIXES``), else ``{"musicxml": text}``. A compressed MusicXML
    file (``.mxl``, the zip MuseScore, Finale, Sibelius and Dorico export by default; told by
    its bytes, whatever its name) is unpacked to the score its ``META-INF/container.xml``
    names (else the zip's one ``.xml``/``.musicxml`` outside ``META-INF``), read no further
    than 1 MiB: a larger score, an unreadable zip or one with no score is ``InvalidRequest``
    on ``field``."""
    if name.lower().endswith(MIDI_SUFFIXES) and not data.startswith(_ZIP):
        return {"midi": base64.b64encode(data).decode()}
    if data.startswith(_ZIP):
        data = _unzipped_score(data, field)
    return {"musicxml": data.decode("utf-8", "replace")}


def _unzipped_score(data: bytes, field: str) -> bytes:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zipped:
            names = zipped.namelist()
            score = _rootfile(zipped) if _CONTAINER in names else None
            if score is None:
                scores = [n for n in names if n.lower().endswith((".xml", ".musicxml"))
                          and not n.startswith("META-INF/")]
                score = scores[0] if len(scores) == 1 else None
            if score is None or score not in names:
                raise InvalidRequest("the compressed MusicXML file names no score",
                                     field=field)
            with zipped.open(score) as opened:
                text = opened.read(MAX_FILE_BYTES + 1)   # a zip bomb stops here
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ET.ParseError, OSError, ValueError,
            NotImplementedError, EOFError):
        raise InvalidRequest("the file is not a readable compressed MusicXML file (.mxl)",
                             field=field) from None
    if len(text) > MAX_FILE_BYTES:
        raise InvalidRequest("the compressed MusicXML file's score is larger than 1 MiB",
                             field=field)
    return text


def _rootfile(zipped: zipfile.ZipFile) -> str | None:
    """The score a compressed MusicXML file's container names (its first ``rootfile``)."""
    with zipped.open(_CONTAINER) as opened:
        container = ET.fromstring(opened.read(MAX_FILE_BYTES))
    for element in container.iter():
        if element.tag.rsplit("}", 1)[-1] == "rootfile":
            path = element.get("full-path")
            return posixpath.normpath(path) if path else None
    return None
