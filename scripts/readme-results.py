#!/usr/bin/env python3
"""The README's benchmark table, made from the published results.

    scripts/readme-results.py           rewrite the table in README.md from
                                        docs/benchmarks/RESULTS.md
    scripts/readme-results.py --check   exit 1 when README.md's table differs
                                        from what RESULTS.md gives (CI)

The table sits between the markers `<!-- results:begin -->` and
`<!-- results:end -->` in README.md; nothing else in the README quotes a
figure. `scripts/bench.sh --publish` rewrites RESULTS.md and then this table.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RESULTS = ROOT / "docs" / "benchmarks" / "RESULTS.md"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"

# The rows: (profile, N, what it is), as RESULTS.md names them.
ROWS = [
    ("todo", "1,000", "todo list, 1,000 items"),
    ("todo", "1,000,000", "todo list, 1,000,000 items"),
    ("feed", "1,000,000", "feed, 1,000,000 posts"),
    ("screens-1000", "1,000", "1,000 screens, a consumer each"),
    ("many-screens", "10,000", "10,000 screens, a consumer each"),
    ("list-edit", "10,000", "list edits (inserts, moves, sorts)"),
    ("remaining", "1,000,000", "a count derived from 1,000,000 items"),
]
# The memory row: the state each strategy holds per item, on this profile
# at this N.
MEMORY_ROW = ("todo", "1,000,000", "state held per item, todo list of 1,000,000 items")
# The columns: strategies, as RESULTS.md names them, and their headings.
COLUMNS = [
    ("full-copy", "full copy (ReSwiftConsumer)"),
    ("reswift-like", "ReSwift-like"),
    ("observation-lazy", "`@Observable`, lazy list"),
    ("faststore", "FastStore `Store`"),
    ("faststore-main", "FastStore `MainStore`"),
    ("faststore-main-lazy", "FastStore `MainStore`, lazy list"),
]


def fail(message):
    print(f"readme-results: {message}", file=sys.stderr)
    sys.exit(1)


def size(text):
    number, unit = text.split()
    scale = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
    if unit not in scale:
        fail(f"RESULTS.md: unknown size unit in {text!r}")
    return float(number.replace(",", "")) * scale[unit]


def seconds(text):
    number, unit = text.split()
    scale = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
    if unit not in scale:
        fail(f"RESULTS.md: unknown time unit in {text!r}")
    return float(number.replace(",", "")) * scale[unit]


def read_results():
    text = RESULTS.read_text()
    date = re.search(r"^- Date: (\S+)", text, re.M)
    command = re.search(r"^- Command: `([^`]+)`", text, re.M)
    machine = re.search(r"^- Machine: (.+)$", text, re.M)
    if not (date and command and machine):
        fail("RESULTS.md has no Date, Command or Machine line")
    lines = text.splitlines()
    try:
        header_at = next(i for i, l in enumerate(lines) if l.startswith("| profile | N |"))
    except StopIteration:
        fail("RESULTS.md has no results table")
    header = [c.strip() for c in lines[header_at].strip("|").split("|")]
    cells = {}
    for line in lines[header_at + 2:]:
        if not line.startswith("|"):
            break
        row = dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
        strategy = row["strategy"].strip("*")
        if "state bytes/item" not in row:
            fail("RESULTS.md's table has no 'state bytes/item' column: republish it (scripts/bench.sh --publish)")
        cells[(row["profile"], row["N"], strategy)] = (row["median"].strip("*"), row["mean"].strip("*"), row["state bytes/item"])
    return date.group(1), command.group(1), machine.group(1), cells


def table():
    date, command, machine, cells = read_results()
    out = [
        f"Median time per dispatch (mean in brackets), one action per dispatch as each profile "
        f"says (`Profiles/`), from `{command}` on {date[:10]} ({machine}); bold is the lowest median. "
        f"The last row is the memory each holds: the state's live bytes (jemalloc's) over its items, bold the least. "
        f"Every strategy, size and figure: [RESULTS.md](docs/benchmarks/RESULTS.md).",
        "",
        "| workload | " + " | ".join(h for _, h in COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for profile, n, label in ROWS:
        found = []
        for strategy, _ in COLUMNS:
            key = (profile, n, strategy)
            if key not in cells:
                fail(f"RESULTS.md has no row for {profile} at N={n}, strategy {strategy}")
            found.append(cells[key])
        fastest = min(range(len(found)), key=lambda i: seconds(found[i][0]))
        row = []
        for i, (median, mean, _) in enumerate(found):
            median = f"**{median}**" if i == fastest else median
            row.append(f"{median} ({mean})")
        out.append(f"| {label} | " + " | ".join(row) + " |")
    profile, n, label = MEMORY_ROW
    held = []
    for strategy, _ in COLUMNS:
        key = (profile, n, strategy)
        if key not in cells:
            fail(f"RESULTS.md has no row for {profile} at N={n}, strategy {strategy}")
        held.append(cells[key][2])
    least = min(range(len(held)), key=lambda i: size(held[i]))
    out.append(f"| {label} | " + " | ".join(f"**{b}**" if i == least else b for i, b in enumerate(held)) + " |")
    return "\n".join(out)


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        fail("usage: scripts/readme-results.py [--check]")
    readme = README.read_text()
    begin, end = readme.find(BEGIN), readme.find(END)
    if begin < 0 or end < begin:
        fail(f"README.md has no {BEGIN} … {END} block")
    new = readme[: begin + len(BEGIN)] + "\n" + table() + "\n" + readme[end:]
    if check:
        if new != readme:
            fail("README.md's table differs from docs/benchmarks/RESULTS.md: run scripts/readme-results.py")
        print("readme-results: README.md's table matches docs/benchmarks/RESULTS.md")
    elif new != readme:
        README.write_text(new)
        print("readme-results: README.md's table rewritten from docs/benchmarks/RESULTS.md")


if __name__ == "__main__":
    main()
