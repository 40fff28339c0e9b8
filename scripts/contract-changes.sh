#!/usr/bin/env bash
# Whether openapi.yaml breaks what clients of the last release were
# generated from (docs/game-client.md, "Versions"). The last release's
# contract is contract/released.yaml; its info.version is that release.
# Two checks, and either may find a break:
#
#   1. optic diff --check: its breaking-change rules on the wire (a field
#      removed or retyped, a request field newly required, an operation
#      or a response removed, ...);
#   2. the names a generated client is compiled against, which optic does
#      not compare: every operationId and every components.schemas name
#      of the release must still be there.
#
# A break passes only under a version SemVer lets break (the major up, or
# the minor while the major is 0) whose section in CHANGELOG.md,
# "## [X.Y.Z]", says BREAKING. Exits 1 on a break that does not.
#
#   scripts/contract-changes.sh [PYTHON]
#
# PYTHON has ruamel.yaml (scripts/contract-test.sh passes its venv's);
# node_modules comes from `npm ci`. optic runs with its telemetry off and
# uploads nothing (no --upload).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
released=contract/released.yaml
current=openapi.yaml
[ -f "$released" ] || { echo "contract-changes: no $released" >&2; exit 1; }

echo "optic diff $released $current --check"
optic_status=0
OPTIC_TELEMETRY_LEVEL=off timeout 300 node_modules/.bin/optic diff "$released" "$current" --check \
  || optic_status=$?

"$python" - "$released" "$current" "$optic_status" <<'PY'
import re
import sys
from ruamel.yaml import YAML

released_path, current_path, optic_status = sys.argv[1], sys.argv[2], int(sys.argv[3])
yaml = YAML(typ="safe")
with open(released_path) as f:
    released = yaml.load(f)
with open(current_path) as f:
    current = yaml.load(f)


def operation_ids(doc):
    return {
        op["operationId"]
        for item in doc.get("paths", {}).values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }


def schema_names(doc):
    return set(doc.get("components", {}).get("schemas", {}))


def version(text):
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", str(text))
    if not match:
        sys.exit(f"contract-changes: info.version {text!r} is not X.Y.Z")
    return tuple(int(part) for part in match.groups())


breaks = []
if optic_status != 0:
    breaks.append("optic found breaking changes (listed above)")
for what, names in (("operationId", operation_ids), ("schema", schema_names)):
    gone = sorted(names(released) - names(current))
    if gone:
        breaks.append(f"{what}s gone: {', '.join(gone)}")

was, now = released["info"]["version"], current["info"]["version"]
print(f"released {was}, openapi.yaml {now}")
if not breaks:
    print("contract-changes: nothing breaks the clients of", was)
    sys.exit(0)
for line in breaks:
    print("break:", line)
old, new = version(was), version(now)
may_break = new[0] > old[0] or (old[0] == 0 and new[0] == 0 and new[1] > old[1])
if not may_break:
    sys.exit(
        f"contract-changes: FAILED: a breaking change needs a new version that may break "
        f"({was} -> {old[0] + 1}.0.0, or {old[0]}.{old[1] + 1}.0 while the major is 0), "
        f"with a section in CHANGELOG.md saying BREAKING"
    )
with open("CHANGELOG.md") as f:
    changelog = f.read()
section = re.search(rf"^## \[{re.escape(str(now))}\][^\n]*\n(.*?)(?=^## \[|\Z)", changelog, re.M | re.S)
if not section or "BREAKING" not in section.group(1):
    sys.exit(f"contract-changes: FAILED: CHANGELOG.md has no section '## [{now}]' saying BREAKING")
print(f"contract-changes: the breaks are announced under {now} in CHANGELOG.md")
PY
