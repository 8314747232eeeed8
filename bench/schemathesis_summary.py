"""The requests of a schemathesis run (its HAR report), per operation: how many, their statuses,
and of the bodies the served schema calls valid, the share the service accepted and the error
codes of the rest (bench/run_schemathesis.sh).

    python bench/schemathesis_summary.py openapi.json requests.har
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import jsonschema


def main(schema_path: str, har_path: str) -> int:
    spec = json.loads(Path(schema_path).read_text())
    validators = {path: jsonschema.Draft202012Validator(
        item["post"]["requestBody"]["content"]["application/json"]["schema"])
        for path, item in spec["paths"].items() if "post" in item}
    entries = json.loads(Path(har_path).read_text())["log"]["entries"]
    statuses: dict[str, Counter[str]] = defaultdict(Counter)
    valid: dict[str, list[int]] = defaultdict(lambda: [0, 0])   # [schema-valid, accepted]
    refused: dict[str, Counter[str]] = defaultdict(Counter)
    for entry in entries:
        request, response = entry["request"], entry["response"]
        path = "/" + request["url"].split("/", 3)[-1].split("?")[0]
        status = int(response["status"])
        statuses[path][f"{status // 100}xx"] += 1
        if status >= 500:
            statuses[path]["5xx " + str(status)] += 1
        validator = validators.get(path)
        text = (request.get("postData") or {}).get("text")
        if validator is None or request["method"] != "POST" or text is None:
            continue
        try:
            body: Any = json.loads(text)
        except ValueError:
            continue
        if validator.is_valid(body):
            valid[path][0] += 1
            if status < 300:
                valid[path][1] += 1
            else:
                try:
                    code = json.loads(response["content"].get("text") or "{}")["error"]["code"]
                except (ValueError, KeyError, TypeError):
                    code = str(status)
                refused[path][code] += 1
    total = sum(sum(v for k, v in c.items() if len(k) == 3) for c in statuses.values())
    print(f"{total:,} requests; per operation: requests (2xx/4xx/5xx), schema-valid bodies "
          "accepted, and the codes the others got")
    for path in sorted(statuses):
        c = statuses[path]
        n = c["2xx"] + c["4xx"] + c["5xx"] + c["3xx"]
        ok, accepted = valid[path]
        share = f"{accepted}/{ok} = {100 * accepted / ok:.0f} %" if ok else "-"
        codes = ", ".join(f"{k} {v}" for k, v in refused[path].most_common(4))
        print(f"  {path:<18} {n:>5} ({c['2xx']}/{c['4xx']}/{c['5xx']})  valid accepted {share}"
              + (f"  refused: {codes}" if codes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
