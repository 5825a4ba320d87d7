"""Run the two-hour lab's notebooks once at their defaults, time each run, and write the times.

    python scripts/time_lab.py [--out build/lab] [--no-write] [NOTEBOOK ...]

Each notebook of the lab (docs/instructor/lab-2h.md, its table) runs with papermill one after the
other, as a room runs them, and its executed copy is kept in ``--out`` as the room's fallback;
progress bars in the copies show their final text. The wall time of each run, in whole seconds,
goes into ``notebooks/times.json`` (``run_seconds``) and into the lab guide's table and its total,
so the guide states what was measured; ``--no-write`` only prints the times.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TIMES = NOTEBOOKS / "times.json"
LAB = ROOT / "docs" / "instructor" / "lab-2h.md"
_ROW = re.compile(r"^(\| \d:\d\d \| \d+ \| )([\w ]+?)( \| [^|]+ \| )(?:\d+ s)?( ?\|)$", re.M)


def lab_notebooks(text: str) -> list[str]:
    """The notebooks of the lab guide's table, in its order."""
    return [m.group(2) for m in _ROW.finditer(text) if (NOTEBOOKS / f"{m.group(2)}.ipynb").is_file()]


def run(name: str, out: Path) -> float:
    """Execute one notebook at its defaults into ``out``; return the wall time in seconds."""
    import nbformat
    import papermill as pm

    from precmp_lib.course.site import final_progress_text

    target = out / f"{name}.ipynb"
    start = time.perf_counter()
    pm.execute_notebook(str(NOTEBOOKS / f"{name}.ipynb"), str(target),
                        parameters={"output_dir": str((out / name).resolve())},
                        cwd=str(NOTEBOOKS), kernel_name="python3", progress_bar=False)
    seconds = time.perf_counter() - start
    nb = nbformat.read(target, as_version=4)
    if final_progress_text(nb):
        nbformat.write(nb, target)
    return seconds


def write_times(measured: dict[str, int]) -> None:
    times = json.loads(TIMES.read_text())
    for name, seconds in measured.items():
        times[name]["run_seconds"] = seconds
    TIMES.write_text(json.dumps(times, indent=1, ensure_ascii=False) + "\n")
    text = LAB.read_text()
    text = _ROW.sub(lambda m: (f"{m.group(1)}{m.group(2)}{m.group(3)}{measured[m.group(2)]} s{m.group(4)}"
                               if m.group(2) in measured else m.group(0)), text)
    total = sum(times[name]["run_seconds"] for name in lab_notebooks(text))
    text, n = re.subn(r"add up to \d+ s", f"add up to {total} s", text)
    if n != 1:
        raise SystemExit(f"{LAB.name}: no 'add up to N s' sentence to update")
    LAB.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook names (default: the lab's)")
    parser.add_argument("--out", default="build/lab", help="folder of the executed copies")
    parser.add_argument("--no-write", action="store_true", help="print the times only")
    args = parser.parse_args(argv)
    names = args.notebooks or lab_notebooks(LAB.read_text())
    unknown = [n for n in names if not (NOTEBOOKS / f"{n}.ipynb").is_file()]
    if unknown:
        print(f"time_lab: no notebook named {', '.join(unknown)}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    measured = {}
    for name in names:
        measured[name] = round(run(name, out))
        print(f"{name}: {measured[name]} s", flush=True)
    print(f"total: {sum(measured.values())} s")
    if not args.no_write:
        write_times(measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())
