"""Composition (API.md section 13): the composition IR, its ten operations and the exporters
(MIDI, MusicXML, iReal Pro, ChordPro). Empty until the compose issue lands."""
