"""Every claim of the lab's text is bound to something that checks it.

The sweep reads the prose students and instructors read on the two-hour path (``SWEPT``: the
markdown cells of notebooks 00, 01 and 13 and of their solutions, the lab guide, the instructor
guide and the notes of 00, 01 and 13; and the topic notebooks 02–12, 14 and 15, their
solutions and their notes) sentence by sentence, and finds its claims: numbers,
percentages, number words ("half", "twice", "three to five"), directions ("too liberal", "too
often", "below", "more … than") and named datasets. A sentence with a claim passes only when

* it is **registered**: a phrase of ``tests/claims.py`` registered for that file covers it, and
  ``test_claims.py`` runs the phrase's computation; or
* it is a **literature fact**: it cites its source the way the text cites everywhere, an author
  and a year, "Dietterich (1998)" or "(Obuchowski 1998)", and ``docs/methods.md`` lists that
  author with that year; or
* it only **states the setting**: each of its numbers is a literal of the notebook's own code
  (a parameter default or a call's argument), so the code next to it says the same, and it has
  no direction or number word.

Sentences built by code cells (the conclusions) are not prose here: their contract tests check
them against results.json. What the sweep checks about them is that a generated bound cannot
print a claim of nothing ("within 0 %").

Beside the sentences: the course map's rows and the guides' section references name the
notebooks' own titles; the times of the guides are those of ``notebooks/times.json``; the
instructor guide's statements about exercises and solutions hold for every notebook.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from claims import CLAIMS
from conftest import ROOT

NOTEBOOK_DIR = ROOT / "notebooks"
INSTRUCTOR = ROOT / "docs" / "instructor"
LAB_NOTEBOOKS = ("00_course_map", "01_mcnemar_cochran", "13_evaluating_on_items")
TOPIC_NOTEBOOKS_A = ("02_cv_ttests", "03_friedman_posthoc", "04_precision_gs_gw", "05_relative_precision",
                     "06_combining_pvalues", "07_bayes_update",
                     "08_cross_validation")
LATER_NOTEBOOKS = ("09_deep_models", "10_replicability", "11_paper_replication",
                   "12_algorithm_selection", "14_planning_item_evaluations")
SWEPT = (
    *(f"notebooks/{nb}.ipynb" for nb in LAB_NOTEBOOKS),
    *(f"notebooks/solutions/{nb}.ipynb" for nb in LAB_NOTEBOOKS),
    "docs/instructor/lab-2h.md",
    "docs/instructor/README.md",
    "docs/instructor/00-05.md#00",
    "docs/instructor/00-05.md#01",
    "docs/instructor/13.md",
    # the topic notebooks 02–08, their solutions and their notes
    *(f"notebooks/{nb}.ipynb" for nb in TOPIC_NOTEBOOKS_A),
    *(f"notebooks/solutions/{nb}.ipynb" for nb in TOPIC_NOTEBOOKS_A),
    *(f"docs/instructor/00-05.md#{nb[:2]}" for nb in TOPIC_NOTEBOOKS_A if nb < "06"),
    *(f"docs/instructor/06-11.md#{nb[:2]}" for nb in TOPIC_NOTEBOOKS_A if nb >= "06"),
    # the later notebooks, their solutions and their notes
    *(f"notebooks/{nb}.ipynb" for nb in LATER_NOTEBOOKS),
    *(f"notebooks/solutions/{nb}.ipynb" for nb in LATER_NOTEBOOKS),
    "docs/instructor/06-11.md#09",
    "docs/instructor/06-11.md#10",
    "docs/instructor/06-11.md#11",
    "docs/instructor/12.md",
    "docs/instructor/14.md",
    # notebook 15 (the bootstrap, the permutation test and DeLong's test), its solutions and notes
    "notebooks/15_bootstrap_permutation.ipynb",
    "notebooks/solutions/15_bootstrap_permutation.ipynb",
    "docs/instructor/15.md",
)

# --- what a claim looks like -------------------------------------------------------------------
_NUMBER = re.compile(r"(?<![\w.·/])[-+−]?\d+(?:[.,]\d+)?(?: \d{3})*(?:\s?%)?")
_WORDS = re.compile(
    r"\b((?:about|nearly|roughly|only|over|under|almost) half|half as|twice|double|"
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten)"
    r"(?: to (?:two|three|four|five|six|seven|eight|nine|ten))? (?:times|exercises))\b", re.I)
_DIRECTIONS = re.compile(
    r"\b(too (?:liberal|conservative|often|rarely|small|large|wide|narrow)|liberal|"
    r"conservative|over-?rejects?|(?:below|above) (?:α|\d|the level|its level|the nominal)|more often|"
    # "more or less often" asks which way (an exercise's question), it does not say one
    r"(?<!more or )less often|no more often|"
    r"more \w+ than|fewer \w+ than|higher than|larger than|"
    # "higher or lower than", "larger or smaller than" ask which way, as "more or less often" does
    r"(?<!higher or )lower than|(?<!larger or )smaller than|"
    r"close to \d|near α|far (?:above|below))\b", re.I)
_DATASETS = re.compile(r"\b(Wilt|Phishing|Urban Land Cover|Magic|Banknote|Diabetic Retinopathy)\b")
# where a number is a name, not a claim: notebooks, sections, exercises, tables, equations
_NAMES = re.compile(
    r"(?:notebooks?|sections?|§|exercises?|tables?|figures?|eqs?\.|equations?|steps?|rows?|"
    r"algorithms?|"  # a paper's numbered algorithm (Gondara's Algorithm 2)
    r"slots?|scenarios?|rules?|answers?|part)\s*\d+(?:[.–-]\d+)*(?:\s*(?:,|and|or|to|–)\s*\d+)*"
    r"|\[\d\d[^\]]*\]|\(\d\d(?:[,–-]\s?\d\d)*\)|^\s*\d+[.:)]|\b\d\d_[a-z_]+|\d+\s*[×x]\s*\d+\s*cv"
    r"|\d+-fold|\b[A-Z][\w–-]*\s+\d{4}\b|\(\d{4}\)|\d:\d\d"
    r"|\b(?:0\d|1[0-5])(?= [A-Z][a-z])|(?:in|of|and|,|\+) (?:0\d|1[0-5])\b(?![.,]\d| %)"
    r"|^\|\s*\d+\s*\||(?<=\")\d+\.|(?<![\d.])\d+: |\b(?:not|except) (?:0\d|1[0-5])\b"
    r"|[A-Za-z]\)? [−-] \d+\b"
    r"|\b\d+\.\d+\.\d+\b",  # a version number (DTComPair 1.2.2) names a release
    re.I | re.M)
# times: planned minutes and measured seconds, which the tests of times below hold to times.json
_TIMES = re.compile(r"(?:about )?\d+(?: \+ \d+)* min(?:utes)?(?:, plus \d+)?|\b\d+ s\b")
_CITATION = re.compile(r"([A-Z][\w–-]+)(?: et al\.| & [A-Z][\w-]+|, [A-Z][\w-]+ & [A-Z][\w-]+)?"
                       r"(?:'s)?\s*\(?(\d{4})\)?")


def _prose(text: str) -> str:
    """Text as read: code spans, math, link targets, HTML comments and headings' marks removed."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " CODE ", text)
    text = re.sub(r"\$[^$]+\$", " MATH ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


def _sentences(text: str) -> list[str]:
    """Sentences (and list items, table rows, headings) of a markdown text, whitespace folded."""
    out = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*] |\d+\. |\||#))", text):
        block = re.sub(r"\s+", " ", block).strip()
        if block.startswith("|"):
            out.append(block)
            continue
        out += [s for s in re.split(r"(?<=[.!?:;])(?<!al\.)(?<!e\.g\.)\s+(?=[A-Z*(\"“])", block) if s]
    return out


def claims_in(sentence: str) -> list[str]:
    """The claims a sentence of prose makes (empty for a sentence that states nothing checkable)."""
    prose = _prose(sentence)
    if prose.lstrip().startswith("#"):
        return []  # a heading names a section
    if prose.lstrip().startswith("**Question:**"):
        return []  # the question a notebook opens with asks what its outputs answer
    named = _NAMES.sub(" ", _TIMES.sub(" ", prose))
    found = [m.group(0).strip() for m in _NUMBER.finditer(named)]
    found += [m.group(0) for m in _WORDS.finditer(prose)]
    found += [m.group(0) for m in _DIRECTIONS.finditer(prose)]
    found += [m.group(0) for m in _DATASETS.finditer(prose)]
    return found


@pytest.mark.parametrize(("sentence", "claims"), [
    # a question that asks which way states no direction; the same words as a statement do
    ("Will the z test reject more or less often than α?", []),
    ("The z test rejects less often than α.", ["less often"]),
    ("Will Fisher's type-I error be higher or lower than at 0.9?", ["0.9"]),
    ("Fisher's type-I error is lower than at 0.9.", ["0.9", "lower than"]),
    ("Is the excess larger or smaller than with two tests?", []),
    ("The excess is smaller than with two tests.", ["smaller than"]),
    # names: a release, a paper's algorithm, the question a notebook opens with
    ("DTComPair 1.2.2 prints B over A.", []),
    ("Gondara's Algorithm 2 stacks the predictions.", []),
    ("**Question:** Is one classifier more precise than another?", []),
    ("A is more precise than B.", ["more precise than"]),
])
def test_questions_and_names_are_not_claims(sentence, claims):
    assert claims_in(sentence) == claims


# --- what binds a claim ------------------------------------------------------------------------
def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def _bibliography() -> str:
    """The methods reference and the sources list of the instructor guide."""
    return (ROOT / "docs" / "methods.md").read_text() + (INSTRUCTOR / "README.md").read_text()


def cited(sentence: str) -> bool:
    """The sentence cites an author and year that docs/methods.md (or the instructor guide's
    sources) lists together."""
    bib = _bibliography()
    for author, year in _CITATION.findall(sentence):
        if re.search(rf"{re.escape(author)}[^\n]{{0,60}}{year}", bib):
            return True
    return False


@cache
def _code_literals(nb_path: str) -> frozenset[str]:
    """The numbers written in a notebook's code cells (its settings)."""
    nb = json.loads((ROOT / nb_path).read_text())
    code = " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    nums = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?", code.replace("_", "")))
    return frozenset(nums | {str(float(n) * 100).rstrip("0").rstrip(".") for n in nums if "." in n})


# the notebooks whose settings a guide states (a parameter of 13 in 13.md); a section of a guide
# that covers several notebooks states the settings of its own notebook only, so that a number of
# the notes on 03 does not pass because 00 or 01 happens to use it
SETTINGS_OF = {
    "docs/instructor/lab-2h.md": [f"notebooks/{nb}.ipynb" for nb in LAB_NOTEBOOKS],
    "docs/instructor/13.md": ["notebooks/13_evaluating_on_items.ipynb",
                              "notebooks/solutions/13_evaluating_on_items.ipynb"],
    **{f"docs/instructor/00-05.md#{nb[:2]}": [f"notebooks/{nb}.ipynb"] for nb in LAB_NOTEBOOKS[:2]},
    # a parameter of 15 in 15.md (the slice of `boundary_n` = 20 right answers)
    "docs/instructor/15.md": ["notebooks/15_bootstrap_permutation.ipynb",
                              "notebooks/solutions/15_bootstrap_permutation.ipynb"],
}


def states_the_setting(file: str, found: list[str]) -> bool:
    sources = [file] if file.endswith(".ipynb") else SETTINGS_OF.get(file, [])
    literals = frozenset().union(*(_code_literals(f) for f in sources))
    for claim in found:
        number = re.fullmatch(r"[-+−]?(\d+(?:[.,]\d+)?(?: \d{3})*)(\s?%)?", claim)
        if number is None or number.group(1).replace(" ", "").replace(",", ".") not in literals:
            return False
    return True


def test_a_section_of_notes_states_only_its_own_notebooks_settings():
    # 40 is grid_max of notebook 01: the notes on 01 may state it as a setting, those on 03 not
    assert "40" in _code_literals("notebooks/01_mcnemar_cochran.ipynb")
    assert states_the_setting("docs/instructor/00-05.md#01", ["40"])
    assert not states_the_setting("docs/instructor/00-05.md#03", ["40"])


def _registered(file: str) -> list[str]:
    path = file.split("#")[0]
    return [_fold(c.says) for claims in CLAIMS.values() for c in claims if c.file == path]


def _exercises_cell(text: str) -> bool:
    return "## Exercises" in text


def _cells(file: str) -> list[tuple[str, str]]:
    """(where, text) of the prose of one swept file: markdown cells, or a guide's section."""
    path, _, section = file.partition("#")
    if path.endswith(".ipynb"):
        nb = json.loads((ROOT / path).read_text())
        return [(f"{path} cell {i}", "".join(c["source"])) for i, c in enumerate(nb["cells"])
                if c["cell_type"] == "markdown"]
    text = (ROOT / path).read_text()
    if section:
        parts = re.split(r"\n(?=## )", text)
        text = next(p for p in parts if p.startswith(f"## {section} "))
    return [(path, text)]


_LAB_ROW = re.compile(r"\| \d:\d\d \|")


def unbound(file: str) -> list[tuple[str, str, list[str]]]:
    """(where, sentence, its claims) of every sentence of ``file`` that nothing binds."""
    registered = _registered(file)
    out = []
    for where, text in _cells(file):
        folded = _fold(text)
        covered = [(folded.find(s), folded.find(s) + len(s)) for s in registered if s in folded]
        for sentence in _sentences(text):
            if _LAB_ROW.match(sentence):
                continue  # the lab's table: its titles and times have their own tests below
            found = claims_in(sentence)
            if _exercises_cell(text):  # a problem's givens are not claims; its directions are
                found = [f for f in found if _DIRECTIONS.fullmatch(f)]
            if not found or cited(sentence) or states_the_setting(file, found):
                continue
            start = folded.find(sentence)
            if any(a < start + len(sentence) and start < b for a, b in covered):
                continue
            out.append((where, sentence, found))
    return out


@pytest.mark.parametrize("file", SWEPT)
def test_every_claim_is_bound(file):
    loose = unbound(file)
    assert not loose, "claims bound to nothing (register them in tests/claims.py, cite their " \
        "source, or let the notebook print them):\n" + "\n".join(
            f"  {where}: {found} in: {sentence}" for where, sentence, found in loose)


# --- sentences the notebooks build -------------------------------------------------------------
# "within {x:.0%}", and the same bound written as a number of per cent, "within {100 * x:.0f} %"
_BOUND_TO_ZERO = re.compile(r"within\s*±?\s*\{[^{}]*:\.0(?:%\}|f\}\s?%)")


@pytest.mark.parametrize(("code", "flagged"), [
    ('f"within {gap:.0%} of the one"', True),
    ('f"within {100 * gap:.0f} % of the one"', True),
    ('f"within ±{100 * gap:.0f}% of it"', True),
    ('f"within {gap:.1%} of the one"', False),
    ('f"within ±{margin:g} (p = {p:.3f})"', False),
    ('f"{100 * share:.0f} % of the probabilities lie within 0.01 of 0 or 1"', False),
])
def test_a_bound_to_zero_is_recognised(code, flagged):
    assert bool(_BOUND_TO_ZERO.search(code)) == flagged


@pytest.mark.parametrize("nb", sorted(p.relative_to(ROOT).as_posix()
                                      for p in NOTEBOOK_DIR.glob("**/[0-9][0-9]_*.ipynb")))
def test_generated_bounds_can_be_read(nb):
    """A bound printed with no decimals ("within {x:.0%}") reads "within 0 %" when x is small."""
    cells = json.loads((ROOT / nb).read_text())["cells"]
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert not _BOUND_TO_ZERO.findall(code)


# --- references to notebooks -------------------------------------------------------------------
@cache
def titles(stem: str) -> str:
    """A notebook's own words for what it covers: its headings and its opening cell, folded."""
    nb = json.loads((NOTEBOOK_DIR / f"{stem}.ipynb").read_text())
    md = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    heads = [line for text in md for line in text.splitlines() if line.startswith("#")]
    return _fold(" ".join([md[0], *heads])).lower()


# a term of the map that names a method must be in the headings or opening of its notebook
MAP_TERMS = ("TOST", "equivalence", "power", "items needed", "McNemar", "Cochran", "binomial",
             "Nadeau–Bengio", "5x2cv", "Bayesian correlated t", "Wilcoxon", "Friedman", "Nemenyi",
             "GEE", "GS", "GW", "nested cross-validation", "clustered", "cluster-robust")


def test_the_map_sends_each_test_to_the_notebook_that_shows_it():
    from precmp_lib.course.maps import course_map_table

    wrong = []
    for row in course_map_table().itertuples():
        for term in MAP_TERMS:
            if re.search(rf"(?<!\w){re.escape(term)}(?!\w)", row.test) and \
                    term.lower() not in titles(row.notebook).replace("×", "x"):
                wrong.append((row.test, term, row.notebook))
    assert not wrong, wrong


def _lab_rows() -> list[list[str]]:
    text = (INSTRUCTOR / "lab-2h.md").read_text()
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if re.match(r"\| \d:\d\d", line)]


def test_the_lab_guide_quotes_section_titles():
    for row in _lab_rows():
        stem = row[2]
        if not (NOTEBOOK_DIR / f"{stem}.ipynb").is_file():
            continue
        for quoted in re.findall(r"\"([^\"]+)\"", row[3]):
            assert _fold(quoted).lower() in titles(stem), (stem, quoted)


# --- times ----------------------------------------------------------------------------------------
@cache
def times() -> dict:
    return json.loads((NOTEBOOK_DIR / "times.json").read_text())


def test_lab_times_are_the_measured_ones():
    text = (INSTRUCTOR / "lab-2h.md").read_text()
    runs = []
    for row in _lab_rows():
        if row[2] in times():
            run = times()[row[2]]["run_seconds"]
            assert row[4] == f"{run} s", (row[2], row[4], run)
            runs.append(run)
    minutes = [int(row[1]) for row in _lab_rows()]
    starts = [int(row[0][0]) * 60 + int(row[0][2:]) for row in _lab_rows()]
    assert starts == [sum(minutes[:k]) for k in range(len(minutes))] and sum(minutes) == 120
    total = re.search(r"add up to (\d+) s", text)
    assert total is not None and int(total.group(1)) == sum(runs), (total and total.group(0), sum(runs))


@pytest.mark.parametrize("file", ["docs/instructor/00-05.md", "docs/instructor/13.md",
                                  *(f"notebooks/{nb}.ipynb" for nb in LAB_NOTEBOOKS)])
def test_stated_minutes_are_the_planned_ones(file):
    text = (ROOT / file).read_text().replace("\\n\",\n    \"", " ")
    for stem, minutes, exercises in re.findall(
            r"(?:## (\d\d) [^\n]*?)?about (\d+)(?: \+ | minutes, plus )(\d+)", text):
        stem = next((s for s in times() if s.startswith(stem)), None) if stem else Path(file).stem
        assert (int(minutes), int(exercises)) == (times()[stem]["minutes"],
                                                  times()[stem]["exercises"]), (file, stem)


# --- exercises and solutions --------------------------------------------------------------------
def _exercises(stem: str) -> int:
    nb = json.loads((NOTEBOOK_DIR / f"{stem}.ipynb").read_text())
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    section = re.search(r"^## Exercises\n(.*?)(?=^## |\Z)", md, flags=re.M | re.S)
    return len(re.findall(r"^\d+\. ", section.group(1), flags=re.M)) if section else 0


TOPICS = sorted(p.stem for p in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb") if p.stem[:2] != "00")


def test_the_guide_counts_the_exercises_as_they_are():
    text = _fold((INSTRUCTOR / "README.md").read_text())
    counts = {_exercises(s) for s in TOPICS}
    words = dict(enumerate("zero one two three four five six seven eight nine ten".split()))
    stated = re.search(r"ends with (\w+) to (\w+) exercises", text)
    if stated:
        assert (stated.group(1), stated.group(2)) == (words[min(counts)], words[max(counts)])


@pytest.mark.parametrize("stem", TOPICS)
def test_every_notebook_with_exercises_has_its_solutions(stem):
    """The instructor guide and the map say every topic notebook's solutions are in solutions/."""
    assert _exercises(stem) > 0
    assert (NOTEBOOK_DIR / "solutions" / f"{stem}.ipynb").is_file()


# --- the glossary ----------------------------------------------------------------------------------
GLOSSARY = {  # the terms the map and notebook 13 use, as the glossaries name them
    "00_course_map": ("Omnibus", "Holm", "Clopper–Pearson", "Nadeau–Bengio", "5×2cv", "ROPE",
                      "GS and GW", "GEE", "Obuchowski", "CR1", "Design effect", "Probit scale",
                      "Monte Carlo SE", "TOST"),
    "13_evaluating_on_items": ("Obuchowski", "CR1", "Design effect", "Probit scale",
                               "Monte Carlo SE", "Type-I error"),
}


def _markdown(stem: str) -> list[str]:
    nb = json.loads((NOTEBOOK_DIR / f"{stem}.ipynb").read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def _glossary_at(cells: list[str]) -> int:
    return next(i for i, text in enumerate(cells)
                if re.match(r"(## |\*\*)Words (the course|this notebook) uses", text))


@pytest.mark.parametrize("stem", sorted(GLOSSARY))
def test_terms_are_defined_before_first_use(stem):
    """Each term has a line of its notebook's glossary (bold or italic, then a colon), and no
    markdown before the glossary uses it, except the opening cell, whose terms the course map's
    glossary (00) defines."""
    cells = _markdown(stem)
    at = _glossary_at(cells)
    course = cells if stem == "00_course_map" else _markdown("00_course_map")
    course_glossary = course[_glossary_at(course)]
    for term in GLOSSARY[stem]:
        assert re.search(rf"^- [*_]+[^:\n]*{re.escape(term)}[^:\n]*[*_]+[^:\n]*:", cells[at],
                         flags=re.M | re.I), (stem, term)
        first = term.split()[0]
        used = re.compile(rf"(?<!\w){re.escape(first)}(?!\w)", 0 if first.isupper() else re.I)
        for i, text in enumerate(cells[:at]):
            if used.search(text):
                assert i == 0 and stem != "00_course_map" and used.search(course_glossary), \
                    (stem, term, i)
