// Reads iReal Pro links with ireal-musicxml (iReal Pro's open reader), as
// tests/test_compose_programs.py asks: `node ireal.mjs IN.json OUT.json`, IN a JSON list of
// `irealbook://` links, OUT a JSON list (one per link) of {songs: [{title, key, cells,
// musicXml}], logs: [every warning and error the reader printed]}.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const ireal = require("ireal-musicxml");
const [input, output] = process.argv.slice(2);
const links = JSON.parse(readFileSync(input, "utf8"));
const logs = [];
for (const level of ["warn", "error", "info", "log"]) {
  console[level] = (...args) => logs.push(`${level}: ${args.join(" ")}`);
}
const out = links.map((link) => {
  logs.length = 0;
  const songs = [];
  try {
    const playlist = ireal.convertSync(link);
    for (const song of playlist.songs) {
      songs.push({ title: song.title, key: song.key, cells: song.cells.length,
                   musicXml: song.musicXml });
    }
  } catch (e) {
    logs.push(`exception: ${e && e.stack ? e.stack : e}`);
  }
  return { songs, logs: [...logs] };
});
writeFileSync(output, JSON.stringify(out));
