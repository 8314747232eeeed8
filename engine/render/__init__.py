"""Render (API.md section 12): MIDI to audio, a SoundFont synthesiser and a built-in one, and
the encoders. Empty until the render issue lands."""
