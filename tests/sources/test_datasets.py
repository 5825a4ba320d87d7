"""Dataset registry, loaders (scikit-learn, the UCI mirror, the cache) and the download client.

Expected shapes and class counts come from the mirror's README table (``data/uci/README.md`` beside
the repository, which checked each file against UCI's archive, names file or independent copies) and,
for scikit-learn's sets, from scikit-learn called in the test. The download tests serve files from a
local HTTP server on 127.0.0.1 laid out like UCI's ``machine-learning-databases`` folder; nothing
here touches the internet.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import re
import shutil
import tempfile
import threading
import urllib.parse
import zipfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA_MIRROR, needs_mirror
from hypothesis import given, settings
from hypothesis import strategies as st

import precmp_lib.course.download as download
import precmp_lib.sources.datasets as data
from precmp_lib import DatasetUnavailable, list_datasets, load_dataset
from precmp_lib.course.download import DownloadError, download_datasets
from precmp_lib.sources.datasets import ChecksumMismatch, describe_datasets

UCI_NAMES = ["wilt", "diabetic_retinopathy", "phishing", "banknote", "magic", "urban_land_cover"]
SKLEARN_NAMES = ["breast_cancer", "digits", "wine", "iris"]

# Mirror README table: rows, feature columns (class excluded), class counts, (train, test) rows.
EXPECTED = {
    "wilt": (4839, 5, {"w": 261, "n": 4578}, (4339, 500)),
    "diabetic_retinopathy": (1151, 19, {1: 611, 0: 540}, None),
    "phishing": (11055, 30, {1: 6157, -1: 4898}, None),
    "banknote": (1372, 4, {0: 762, 1: 610}, None),
    "magic": (19020, 10, {"g": 12332, "h": 6688}, None),
    "urban_land_cover": (
        675,
        147,
        {
            "building": 122,
            "concrete": 116,
            "grass": 112,
            "tree": 106,
            "shadow": 61,
            "asphalt": 59,
            "car": 36,
            "soil": 34,
            "pool": 29,
        },
        (168, 507),
    ),
}


@pytest.fixture
def no_mirror(monkeypatch):
    monkeypatch.delenv(data.MIRROR_ENV, raising=False)
    monkeypatch.delenv(download.URL_ENV, raising=False)


@pytest.fixture
def mirror(monkeypatch) -> Path:
    monkeypatch.setenv(data.MIRROR_ENV, DATA_MIRROR)
    return Path(DATA_MIRROR)


def _counts(y: pd.Series) -> dict:
    return {(k.item() if hasattr(k, "item") else k): int(v) for k, v in y.value_counts().items()}


# --------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------


def test_registry_lists_the_ten_datasets_with_their_metadata():
    reg = list_datasets()
    assert reg["name"].tolist() == SKLEARN_NAMES + UCI_NAMES
    for col in (
        "source",
        "download",
        "license",
        "citation",
        "rows",
        "columns",
        "classes",
        "split",
        "paper_rows",
        "paper_attributes",
    ):
        assert col in reg.columns
    assert (reg["license"] == "CC BY 4.0").all()
    assert reg["citation"].str.len().gt(10).all()
    uci = reg[reg["loader"] == "uci"].set_index("name")
    assert uci.index.tolist() == UCI_NAMES
    assert uci["source"].str.startswith("https://archive.ics.uci.edu/dataset/").all()
    assert uci["download"].str.startswith(download.UCI_BASE_URL + "/").all()
    for name, (rows, cols, counts, split) in EXPECTED.items():
        assert (uci.loc[name, "rows"], uci.loc[name, "columns"], uci.loc[name, "classes"]) == (
            rows,
            cols,
            len(counts),
        )
        assert (uci.loc[name, "split"] == "train/test") == (split is not None)


def test_registry_records_the_papers_table_4_where_it_differs():
    # Gondara, Table 4: Wilt 4889 and Phishing 2456 instances; the UCI files hold 4839 and 11055.
    reg = list_datasets().set_index("name")
    assert reg.loc["wilt", "paper_rows"] == 4889
    assert reg.loc["phishing", "paper_rows"] == 2456
    same = ["diabetic_retinopathy", "banknote", "magic", "urban_land_cover"]
    assert (reg.loc[same, "paper_rows"] == reg.loc[same, "rows"]).all()
    assert reg.loc[SKLEARN_NAMES, "paper_rows"].isna().all()


def test_per_file_expectations_add_up_to_the_registry():
    reg = list_datasets().set_index("name")
    for name in UCI_NAMES:
        files = data._UCI[name].files
        assert sum(f.rows for f in files) == reg.loc[name, "rows"]
        total = {}
        for f in files:
            assert sum(f.counts.values()) == f.rows
            for k, v in f.counts.items():
                total[k] = total.get(k, 0) + v
        assert total == EXPECTED[name][2]


def test_list_datasets_returns_a_copy():
    reg = list_datasets()
    reg.loc[0, "name"] = "changed"
    assert list_datasets().loc[0, "name"] == "breast_cancer"


def test_unknown_name_is_a_value_error():
    with pytest.raises(ValueError, match=r"name must be one of the registered datasets .*'nope'"):
        load_dataset("nope")
    with pytest.raises(ValueError, match="name must be one of"):
        describe_datasets(["iris", "nope"])


# --------------------------------------------------------------------------------------------
# scikit-learn's bundled sets
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SKLEARN_NAMES)
def test_sklearn_sets_match_sklearn(name):
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    ds = load_dataset(name)
    np.testing.assert_array_equal(ds.X.to_numpy(), X)
    np.testing.assert_array_equal(ds.y.to_numpy(), y)
    assert ds.y.name == "class" and ds.y.dtype == np.int64 and ds.split is None
    reg = list_datasets().set_index("name")
    assert ds.X.shape == (reg.loc[name, "rows"], reg.loc[name, "columns"])
    assert ds.y.nunique() == reg.loc[name, "classes"]


def test_loaded_data_are_copies():
    ds = load_dataset("iris")
    ds.X.iloc[0, 0] = -1.0
    ds.y.iloc[0] = 99
    again = load_dataset("iris")
    assert again.X.iloc[0, 0] == 5.1 and again.y.iloc[0] == 0  # Fisher's first iris


# --------------------------------------------------------------------------------------------
# the UCI sets from the mirror
# --------------------------------------------------------------------------------------------


@needs_mirror
@pytest.mark.parametrize("name", UCI_NAMES)
def test_uci_sets_load_from_the_mirror(mirror, name):
    rows, cols, counts, split = EXPECTED[name]
    ds = load_dataset(name)
    assert ds.X.shape == (rows, cols)
    assert _counts(ds.y) == counts
    assert ds.y.name == "class" and len(ds.y) == rows
    assert all(pd.api.types.is_numeric_dtype(t) for t in ds.X.dtypes)
    assert not ds.X.isna().any().any() and not ds.y.isna().any()
    assert ds.X.index.equals(pd.RangeIndex(rows)) and ds.y.index.equals(ds.X.index)
    if split is None:
        assert ds.split is None
    else:
        n_train, n_test = split
        assert ds.split.tolist() == ["train"] * n_train + ["test"] * n_test  # train rows first


@needs_mirror
def test_uci_labels_are_clean_and_of_the_sources_type(mirror):
    for name in ("wilt", "magic", "urban_land_cover"):
        y = load_dataset(name).y
        assert (y == y.str.strip()).all()  # Urban Land Cover's file has "grass " etc.
    for name in ("diabetic_retinopathy", "phishing", "banknote"):
        assert load_dataset(name).y.dtype == np.int64
    assert set(load_dataset("urban_land_cover").y) == {
        "asphalt",
        "building",
        "car",
        "concrete",
        "grass",
        "pool",
        "shadow",
        "soil",
        "tree",
    }


@needs_mirror
def test_uci_column_names(mirror):
    # magic04.names and the Banknote page name the columns of these headerless files.
    assert load_dataset("magic").X.columns.tolist() == [
        "fLength",
        "fWidth",
        "fSize",
        "fConc",
        "fConc1",
        "fAsym",
        "fM3Long",
        "fM3Trans",
        "fAlpha",
        "fDist",
    ]
    assert load_dataset("banknote").X.columns.tolist() == [
        "variance",
        "skewness",
        "curtosis",
        "entropy",
    ]
    assert load_dataset("wilt").X.columns.tolist() == [
        "GLCM_pan",
        "Mean_Green",
        "Mean_Red",
        "Mean_NIR",
        "SD_pan",
    ]
    assert load_dataset("diabetic_retinopathy").X.columns.tolist() == [str(i) for i in range(19)]
    assert load_dataset("phishing").X.columns[[0, -1]].tolist() == [
        "having_IP_Address",
        "Statistical_report",
    ]
    ulc = load_dataset("urban_land_cover").X.columns
    assert ulc[0] == "BrdIndx" and ulc[-1].endswith("_140")


@needs_mirror
def test_uci_values_match_the_files(mirror):
    # First data row of each file, read off the file itself.
    assert load_dataset("banknote").X.iloc[0].tolist() == [3.6216, 8.6661, -2.8073, -0.44699]
    magic = load_dataset("magic")
    assert magic.X.iloc[0, 0] == 28.7967 and magic.y.iloc[0] == "g"
    wilt = load_dataset("wilt")
    assert wilt.X.iloc[0].tolist() == [120.3627737, 205.5, 119.3953488, 416.5813953, 20.67631835]
    assert wilt.y.iloc[0] == "w" and wilt.y.iloc[4339] == "n"  # first row of testing.csv


@needs_mirror
def test_relative_mirror_path_is_resolved_against_the_working_directory(monkeypatch):
    root = Path(DATA_MIRROR).resolve()
    monkeypatch.chdir(root.parent)
    monkeypatch.setenv(data.MIRROR_ENV, root.name)
    assert load_dataset("banknote").X.shape == (1372, 4)


def test_missing_mirror_directory_is_a_one_line_error(monkeypatch, tmp_path):
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(
        DatasetUnavailable, match=r"PRECMP_DATA_MIRROR=.*nowhere is not a directory"
    ) as exc:
        load_dataset("wilt")
    assert "\n" not in str(exc.value)


def test_without_mirror_or_cache_loading_says_make_data(no_mirror, tmp_path):
    with pytest.raises(
        DatasetUnavailable, match=r"'magic' is not available.*run `make data`"
    ) as exc:
        load_dataset("magic", cache_dir=tmp_path)
    assert "\n" not in str(exc.value)
    assert isinstance(exc.value, FileNotFoundError)


def test_a_mirror_missing_a_file_names_it(monkeypatch, tmp_path):
    (tmp_path / "wilt").mkdir()
    (tmp_path / "wilt" / "training.csv").write_text("class,a\n")
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path))
    with pytest.raises(DatasetUnavailable, match=r"testing\.csv missing in the mirror"):
        load_dataset("wilt")


# --------------------------------------------------------------------------------------------
# content checks on variants of the files
# --------------------------------------------------------------------------------------------


def _copy_mirror(dest: Path, *names: str) -> Path:
    for name in names:
        src = Path(DATA_MIRROR) / data._UCI[name].mirror_dir
        shutil.copytree(src, dest / data._UCI[name].mirror_dir)
    return dest


@needs_mirror
@pytest.mark.parametrize("newline", ["\r\n", "\n"])
@pytest.mark.parametrize("header", [False, True])
@pytest.mark.parametrize("final_newline", [False, True])
def test_headerless_files_parse_the_same_whatever_the_header_and_line_endings(
    mirror, monkeypatch, tmp_path, newline, header, final_newline
):
    # Copies of the Banknote file differ in line endings, a final newline and an added header
    # line: the parser and the content check accept them all; loading accepts only the original
    # bytes (the registry's sha256), and says so for the others.
    original = load_dataset("banknote")
    lines = (
        (mirror / "banknote_authentication" / "data_banknote_authentication.txt")
        .read_text()
        .splitlines()
    )
    if header:
        lines.insert(0, "variance,skewness,curtosis,entropy,class")
    folder = tmp_path / "banknote_authentication"
    folder.mkdir()
    text = newline.join(lines) + (newline if final_newline else "")
    (folder / "data_banknote_authentication.txt").write_bytes(text.encode())
    ((_, X, y),) = data._read_checked("banknote", folder)
    pd.testing.assert_frame_equal(X, original.X)
    pd.testing.assert_series_equal(y, original.y)
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path))
    identical = newline == "\r\n" and not header and not final_newline  # the mirror's own bytes
    if identical:
        pd.testing.assert_frame_equal(load_dataset("banknote").X, original.X)
    else:
        with pytest.raises(ChecksumMismatch, match=r"data_banknote_authentication\.txt"):
            load_dataset("banknote")


@needs_mirror
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_content_check_does_not_depend_on_row_order(seed):
    # Property: any permutation of the data rows passes the content check with the same class
    # counts (the digest, which does depend on it, is checked separately).
    lines = (
        (Path(DATA_MIRROR) / "banknote_authentication" / "data_banknote_authentication.txt")
        .read_text()
        .splitlines()
    )
    order = np.random.default_rng(seed).permutation(len(lines))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "banknote_authentication"
        folder.mkdir()
        (folder / "data_banknote_authentication.txt").write_text("\n".join(lines[i] for i in order))
        ((_, X, y),) = data._read_checked("banknote", folder)
    assert _counts(y) == {0: 762, 1: 610}
    assert X.iloc[int(np.argmin(order))].tolist() == [3.6216, 8.6661, -2.8073, -0.44699]


@needs_mirror
def test_arff_header_variants_parse_the_same(mirror, monkeypatch, tmp_path):
    # One copy declares the class as "@attribute 19 numeric"; another adds a comment line on top.
    text = (mirror / "diabetic_retinopathy_debrecen" / "messidor_features.arff").read_text()
    text = "% Taken from the UCI repository\n" + text.replace(
        "@attribute Class {0,1}", "@attribute '19' numeric"
    )
    folder = tmp_path / "diabetic_retinopathy_debrecen"
    folder.mkdir()
    (folder / "messidor_features.arff").write_text(text)
    ((_, X, y),) = data._read_checked("diabetic_retinopathy", folder)
    assert X.shape == (1151, 19) and _counts(y) == {1: 611, 0: 540}
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path))
    with pytest.raises(ChecksumMismatch, match=r"messidor_features\.arff is not the UCI original"):
        load_dataset("diabetic_retinopathy")


@needs_mirror
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: lines[:-1], r"1371 rows, expected 1372; class counts \{0: 762, 1: 609\}"),
        (
            lambda lines: [*lines[:-1], lines[-1][:-4]],
            r"1 data rows with missing or unreadable values \(rows 1372\)",
        ),
        (
            lambda lines: [lines[0].replace(",0", ",1"), *lines[1:]],
            r"class counts \{0: 761, 1: 611\}, expected \{0: 762, 1: 610\}",
        ),
        (lambda lines: [ln.rsplit(",", 1)[0] for ln in lines], r"4 columns per row, expected 5"),
    ],
)
def test_a_damaged_file_is_a_clear_error(monkeypatch, tmp_path, edit, message):
    folder = tmp_path / "banknote_authentication"
    folder.mkdir()
    lines = (
        (Path(DATA_MIRROR) / "banknote_authentication" / "data_banknote_authentication.txt")
        .read_text()
        .splitlines()
    )
    (folder / "data_banknote_authentication.txt").write_text("\n".join(edit(lines)))
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path))
    with pytest.raises(
        ValueError, match=r"dataset 'banknote': .* does not match the UCI original"
    ) as exc:
        load_dataset("banknote")
    assert pd.Series([str(exc.value)]).str.contains(message).item(), str(exc.value)
    assert "data_banknote_authentication.txt" in str(exc.value)


@needs_mirror
def test_urban_land_cover_with_uncleaned_labels_counts_the_same(mirror):
    # The file's labels carry a trailing space; the counts only match once they are stripped.
    raw = pd.read_csv(mirror / "urban_land_cover" / "training.csv")
    assert raw["class"].str.endswith(" ").all()
    ds = load_dataset("urban_land_cover")
    assert _counts(ds.y[ds.split == "train"]) == dict(data._UCI["urban_land_cover"].files[0].counts)


# --------------------------------------------------------------------------------------------
# describe_datasets
# --------------------------------------------------------------------------------------------


def test_describe_datasets_notes_unavailable_sets_in_one_line(no_mirror, tmp_path):
    table = describe_datasets(["iris", "wilt"], cache_dir=tmp_path)
    iris, wilt = table.to_dict(orient="records")
    assert iris["available"] and (iris["rows"], iris["features"], iris["classes"]) == (150, 4, 3)
    assert iris["minority_share"] == pytest.approx(1 / 3) and pd.isna(iris["n_train"])
    assert not wilt["available"] and pd.isna(wilt["rows"])
    assert "make data" in wilt["note"] and "\n" not in wilt["note"]


@needs_mirror
def test_describe_datasets_with_the_mirror(mirror):
    table = describe_datasets().set_index("name")
    assert table["available"].all()
    for name, (rows, cols, counts, split) in EXPECTED.items():
        assert (table.loc[name, "rows"], table.loc[name, "features"]) == (rows, cols)
        assert table.loc[name, "minority_share"] == pytest.approx(min(counts.values()) / rows)
        if split is not None:
            assert (table.loc[name, "n_train"], table.loc[name, "n_test"]) == split
    assert table.index[table["note"].str.contains("Table 4")].tolist() == ["wilt", "phishing"]


# --------------------------------------------------------------------------------------------
# downloads from a local HTTP server
# --------------------------------------------------------------------------------------------


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list[str]

    def log_message(self, *args):  # keep the test output quiet
        pass

    def do_GET(self):
        self.server.requests.append(urllib.parse.unquote(self.path))
        if self.path.endswith("/liar.txt"):  # announces more bytes than it sends
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"0.1,0.2,0.3,0.4,0\n")
            self.close_connection = True
            return
        super().do_GET()


@contextmanager
def _serve(directory: Path):
    handler = lambda *a, **kw: _Handler(*a, directory=str(directory), **kw)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _remote(name: str) -> Path:
    return Path(urllib.parse.unquote(download._remote_path(name)))


def _layout_like_uci(root: Path, names=UCI_NAMES) -> Path:
    """Put the mirror's files where the registry's download URLs point, zipping Wilt and ULC."""
    for name in names:
        src = Path(DATA_MIRROR) / data._UCI[name].mirror_dir
        dest = root / _remote(name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.suffix == ".zip":
            with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
                for f in data._UCI[name].files:
                    zf.write(src / f.name, f.name)
        else:
            shutil.copyfile(src / data._UCI[name].files[0].name, dest)
    return root


@pytest.fixture(scope="module")
def uci_site(tmp_path_factory):
    if not DATA_MIRROR:
        pytest.skip("PRECMP_DATA_MIRROR is not set (the UCI files to serve are not available)")
    root = _layout_like_uci(tmp_path_factory.mktemp("uci"))
    with _serve(root) as (server, url):
        yield server, url


def _leftovers(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*")) if cache.exists() else []


def test_registry_urls_are_the_classic_uci_paths():
    paths = {n: download._remote_path(n) for n in UCI_NAMES}
    assert paths == {
        "wilt": "00285/wilt.zip",
        "diabetic_retinopathy": "00329/messidor_features.arff",
        "phishing": "00327/Training%20Dataset.arff",
        "banknote": "00267/data_banknote_authentication.txt",
        "magic": "magic/magic04.data",
        "urban_land_cover": "00295/Urban%20land%20cover.zip",
    }


def test_download_all_then_load_from_the_cache(no_mirror, uci_site, tmp_path, monkeypatch):
    _, url = uci_site
    cache = tmp_path / "cache"
    got = download_datasets(base_url=url, cache_dir=cache, progress=False)
    assert sorted(got) == sorted(UCI_NAMES)
    assert _leftovers(cache) == sorted(
        [n for n in UCI_NAMES] + [f"{n}/{f.name}" for n in UCI_NAMES for f in data._UCI[n].files]
    )
    for name in UCI_NAMES:
        from_cache = load_dataset(name, cache_dir=cache)
        monkeypatch.setenv(data.MIRROR_ENV, DATA_MIRROR)
        from_mirror = load_dataset(name)
        monkeypatch.delenv(data.MIRROR_ENV)
        pd.testing.assert_frame_equal(from_cache.X, from_mirror.X)
        pd.testing.assert_series_equal(from_cache.y, from_mirror.y)


def test_a_good_cached_copy_is_not_fetched_again(no_mirror, uci_site, tmp_path):
    server, url = uci_site
    cache = tmp_path / "cache"
    download_datasets(["banknote", "wilt"], base_url=url, cache_dir=cache, progress=False)
    before = len(server.requests)
    download_datasets(["banknote", "wilt"], base_url=url, cache_dir=cache, progress=False)
    assert len(server.requests) == before
    download_datasets(["banknote"], base_url=url, cache_dir=cache, progress=False, force=True)
    assert server.requests[before:] == ["/00267/data_banknote_authentication.txt"]


def test_a_damaged_cached_copy_is_fetched_again(no_mirror, uci_site, tmp_path):
    server, url = uci_site
    cache = tmp_path / "cache"
    download_datasets(["banknote"], base_url=url, cache_dir=cache, progress=False)
    target = cache / "banknote" / "data_banknote_authentication.txt"
    target.write_text(target.read_text()[:1000])
    with pytest.raises(ValueError, match="rows, expected 1372"):
        load_dataset("banknote", cache_dir=cache)
    before = len(server.requests)
    download_datasets(["banknote"], base_url=url, cache_dir=cache, progress=False)
    assert len(server.requests) == before + 1
    assert load_dataset("banknote", cache_dir=cache).X.shape == (1372, 4)


def test_base_url_from_the_environment(no_mirror, uci_site, tmp_path, monkeypatch):
    server, url = uci_site
    monkeypatch.setenv(download.URL_ENV, url + "/")
    download_datasets(["magic"], cache_dir=tmp_path, progress=False)
    assert server.requests[-1] == "/magic/magic04.data"


@needs_mirror
def test_a_file_url_works_as_base_url(no_mirror, tmp_path):
    site = _layout_like_uci(tmp_path / "site", ["banknote"])
    download_datasets(
        ["banknote"], base_url=site.as_uri(), cache_dir=tmp_path / "c", progress=False
    )
    assert load_dataset("banknote", cache_dir=tmp_path / "c").X.shape == (1372, 4)


def test_progress_bar_names_the_file(no_mirror, uci_site, tmp_path, capsys):
    _, url = uci_site
    download_datasets(["banknote"], base_url=url, cache_dir=tmp_path, progress=True)
    assert "banknote: data_banknote_authentication.txt" in capsys.readouterr().err


def test_http_404_is_a_clear_error_and_leaves_nothing(no_mirror, tmp_path):
    cache = tmp_path / "cache"
    (tmp_path / "empty").mkdir()
    with _serve(tmp_path / "empty") as (_, url):
        with pytest.raises(
            DownloadError,
            match=r"phishing: Training Dataset\.arff: .*/00327/Training%20Dataset\.arff answered HTTP 404",
        ):
            download_datasets(["phishing"], base_url=url, cache_dir=cache, progress=False)
    assert _leftovers(cache) == []


def test_no_server_is_a_clear_error(no_mirror, tmp_path):
    with _serve(tmp_path) as (_, url):
        pass  # the server is gone: the port refuses connections
    with pytest.raises(DownloadError, match=r"banknote: .*could not download http://127\.0\.0\.1"):
        download_datasets(["banknote"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


def test_a_transfer_cut_short_is_an_error(no_mirror, tmp_path, monkeypatch):
    monkeypatch.setattr(download, "_remote_path", lambda name: "liar.txt")
    with _serve(tmp_path) as (_, url):
        with pytest.raises(DownloadError, match=r"cut short \(18 of 1000 bytes\)"):
            download_datasets(["banknote"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


@needs_mirror
def test_a_truncated_file_fails_the_content_check(no_mirror, tmp_path):
    site = _layout_like_uci(tmp_path / "site", ["magic"])
    path = site / _remote("magic")
    path.write_bytes(path.read_bytes()[:-500])  # the server sends the shorter file whole
    with _serve(site) as (_, url):
        with pytest.raises(
            ValueError,
            match=r"dataset 'magic': .*magic04\.data does not match the UCI original: 190\d\d rows, expected 19020.*nothing was written to the cache",
        ):
            download_datasets(["magic"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


@needs_mirror
def test_a_content_mismatch_names_what_differs(no_mirror, tmp_path):
    site = _layout_like_uci(tmp_path / "site", ["banknote"])
    path = site / _remote("banknote")
    path.write_bytes(path.read_bytes().replace(b",0\r\n", b",1\r\n", 3))
    with _serve(site) as (_, url):
        with pytest.raises(
            ValueError, match=r"class counts \{0: 759, 1: 613\}, expected \{0: 762, 1: 610\}"
        ):
            download_datasets(["banknote"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


@needs_mirror
def test_zip_archives_are_unpacked_wherever_their_members_sit(no_mirror, tmp_path):
    # A zip made on a Mac has its files in a folder and "__MACOSX/._name" shadows beside them.
    site = tmp_path / "site"
    dest = site / _remote("urban_land_cover")
    dest.parent.mkdir(parents=True)
    src = Path(DATA_MIRROR) / "urban_land_cover"
    with zipfile.ZipFile(dest, "w") as zf:
        for name in ("training.csv", "testing.csv"):
            zf.write(src / name, f"Urban land cover/{name}")
            zf.writestr(f"__MACOSX/Urban land cover/._{name}", b"\x00\x05\x16\x07")
    with _serve(site) as (_, url):
        download_datasets(
            ["urban_land_cover"], base_url=url, cache_dir=tmp_path / "c", progress=False
        )
    assert load_dataset("urban_land_cover", cache_dir=tmp_path / "c").X.shape == (675, 147)


def test_a_damaged_zip_is_a_clear_error(no_mirror, tmp_path):
    site = tmp_path / "site"
    dest = site / _remote("wilt")
    dest.parent.mkdir(parents=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("training.csv", "class,a\n" * 100)
    dest.write_bytes(buf.getvalue()[:-30])  # the central directory is cut off
    with _serve(site) as (_, url):
        with pytest.raises(DownloadError, match=r"wilt: wilt\.zip: not a readable zip archive"):
            download_datasets(["wilt"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


def test_a_zip_without_a_member_names_it(no_mirror, tmp_path):
    site = tmp_path / "site"
    dest = site / _remote("wilt")
    dest.parent.mkdir(parents=True)
    with zipfile.ZipFile(dest, "w") as zf:
        zf.writestr("training.csv", "class,a\nw,1\n")
    with _serve(site) as (_, url):
        with pytest.raises(
            DownloadError, match=r"no member 'testing\.csv' \(it holds training\.csv\)"
        ):
            download_datasets(["wilt"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


@needs_mirror
def test_an_interrupted_download_leaves_nothing(no_mirror, uci_site, tmp_path, monkeypatch):
    _, url = uci_site

    def interrupt(name, directory):
        assert any(directory.iterdir())  # the files were staged
        raise KeyboardInterrupt

    monkeypatch.setattr(data, "_read_checked", interrupt)
    with pytest.raises(KeyboardInterrupt):
        download_datasets(["wilt"], base_url=url, cache_dir=tmp_path / "c", progress=False)
    assert _leftovers(tmp_path / "c") == []


def test_only_uci_sets_are_downloaded(tmp_path):
    with pytest.raises(
        ValueError, match=r"names must be UCI datasets .*'iris' ships with scikit-learn"
    ):
        download_datasets(["iris"], cache_dir=tmp_path)


def test_command_line_downloads_and_reports(no_mirror, uci_site, tmp_path, capsys):
    _, url = uci_site
    code = download._main(
        ["download", "banknote", "--base-url", url, "--cache-dir", str(tmp_path), "--no-progress"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("banknote: downloaded, 1372 rows x 4 features, checked: ")
    assert download._main(["download", "banknote", "--cache-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("banknote: already in the cache, 1372 rows")


def test_command_line_failure_exits_non_zero(no_mirror, tmp_path, capsys):
    (tmp_path / "site").mkdir()
    with _serve(tmp_path / "site") as (_, url):
        code = download._main(
            [
                "download",
                "magic",
                "--base-url",
                url,
                "--cache-dir",
                str(tmp_path / "c"),
                "--no-progress",
            ]
        )
    err = capsys.readouterr().err
    assert code == 1
    assert "make data: magic: magic04.data: " in err and "HTTP 404" in err
    assert err.strip().endswith("1 of 1 datasets failed")


def test_available_datasets_leaves_out_missing_uci_sets_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PRECMP_DATA_MIRROR", raising=False)
    names = data.available_datasets(["iris", "wilt", "digits", "magic"], cache_dir=tmp_path)
    assert names == ["iris", "digits"]
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "left out: wilt, magic" in out[0] and "make data" in out[0]
    assert data.available_datasets(["wilt"], cache_dir=tmp_path, quiet=True) == []
    with pytest.raises(ValueError, match="nope"):
        data.available_datasets(["nope"])


# --------------------------------------------------------------------------------------------
# sha256: every copy (mirror, download, cache) is the UCI original byte for byte
# --------------------------------------------------------------------------------------------

BANKNOTE = "data_banknote_authentication.txt"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _banknote_with_one_digit_changed(folder: Path) -> Path:
    """The mirror's Banknote file with 3.6216 (first row, first value) changed to 3.6217."""
    raw = (Path(DATA_MIRROR) / "banknote_authentication" / BANKNOTE).read_bytes()
    assert raw.count(b"3.6216,") == 1
    folder.mkdir(parents=True, exist_ok=True)
    (folder / BANKNOTE).write_bytes(raw.replace(b"3.6216,", b"3.6217,"))
    return folder / BANKNOTE


def test_registry_records_a_sha256_for_every_uci_file():
    for name in UCI_NAMES:
        digests = data._registry_digests(name)
        assert sorted(digests) == sorted(f.name for f in data._UCI[name].files)
        assert all(re.fullmatch(r"[0-9a-f]{64}", d) for d in digests.values())
    for name in SKLEARN_NAMES:
        assert data._registry_digests(name) == {}


@needs_mirror
def test_registry_digests_agree_with_the_mirror_files_and_its_readme():
    # The mirror's README lists "sha256  folder/file" lines; hashlib recomputes them here.
    readme = (Path(DATA_MIRROR) / "README.md").read_text()
    listed = {m[1]: m[0] for m in re.findall(r"^([0-9a-f]{64})  (\S.*)$", readme, flags=re.M)}
    assert len(listed) == 8
    for name in UCI_NAMES:
        folder = data._UCI[name].mirror_dir
        for file, digest in data._registry_digests(name).items():
            assert digest == listed[f"{folder}/{file}"]
            assert digest == _sha256(Path(DATA_MIRROR) / folder / file)


@needs_mirror
def test_a_changed_digit_in_the_mirror_is_a_checksum_error_naming_both_digests(
    monkeypatch, tmp_path
):
    # Changing one digit keeps every content check happy (rows, columns, class counts) ...
    changed = _banknote_with_one_digit_changed(tmp_path / "mirror" / "banknote_authentication")
    ((_, X, _),) = data._read_checked("banknote", changed.parent)
    assert X.iloc[0, 0] == 3.6217
    # ... but not the digest: the error names the file, the expected and the found sha256.
    expected = _sha256(Path(DATA_MIRROR) / "banknote_authentication" / BANKNOTE)
    found = _sha256(changed)
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path / "mirror"))
    with pytest.raises(ChecksumMismatch) as exc:
        load_dataset("banknote")
    message = str(exc.value)
    assert BANKNOTE in message and f"sha256 {found}, expected {expected}" in message
    assert isinstance(exc.value, ValueError)


@needs_mirror
def test_a_changed_digit_in_a_download_is_refused_and_nothing_is_cached(no_mirror, tmp_path):
    site = tmp_path / "site"
    _banknote_with_one_digit_changed(site / _remote("banknote").parent)
    cache = tmp_path / "cache"
    with _serve(site) as (_, url):
        with pytest.raises(
            ChecksumMismatch,
            match=rf"{BANKNOTE} is not the UCI original: sha256 {_sha256(site / _remote('banknote'))}, "
            rf"expected {data._registry_digests('banknote')[BANKNOTE]}.*nothing was written to the cache",
        ):
            download_datasets(["banknote"], base_url=url, cache_dir=cache, progress=False)
    assert _leftovers(cache) == []


@needs_mirror
def test_a_cached_copy_with_a_changed_digit_is_not_used_and_is_fetched_again(
    no_mirror, uci_site, tmp_path
):
    _, url = uci_site
    cache = tmp_path / "cache"
    _banknote_with_one_digit_changed(cache / "banknote")
    with pytest.raises(ChecksumMismatch, match=re.escape(BANKNOTE)):
        load_dataset("banknote", cache_dir=cache)
    download_datasets(["banknote"], base_url=url, cache_dir=cache, progress=False)
    assert _sha256(cache / "banknote" / BANKNOTE) == data._registry_digests("banknote")[BANKNOTE]
    assert load_dataset("banknote", cache_dir=cache).X.iloc[0, 0] == 3.6216


# --------------------------------------------------------------------------------------------
# where downloads go: a user cache, never the package
# --------------------------------------------------------------------------------------------


def test_cache_dir_comes_from_precmp_data_then_the_platform(monkeypatch, tmp_path):
    monkeypatch.setattr(data.sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PRECMP_DATA", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert data.default_cache_dir() == tmp_path / "home" / ".cache" / "precmp"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG rules skip relative paths
    assert data.default_cache_dir() == tmp_path / "home" / ".cache" / "precmp"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert data.default_cache_dir() == tmp_path / "xdg" / "precmp"
    monkeypatch.setattr(data.sys, "platform", "darwin")
    assert data.default_cache_dir() == tmp_path / "home" / "Library" / "Caches" / "precmp"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PRECMP_DATA", "mine")  # relative: from the working directory
    assert data.default_cache_dir() == tmp_path / "mine"


def test_without_mirror_loading_and_make_data_use_precmp_data(no_mirror, monkeypatch, tmp_path):
    monkeypatch.setenv("PRECMP_DATA", str(tmp_path / "cache"))
    with pytest.raises(DatasetUnavailable, match=re.escape(str(tmp_path / "cache" / "magic"))):
        load_dataset("magic")


@needs_mirror
def test_make_data_writes_to_precmp_data(no_mirror, uci_site, monkeypatch, tmp_path, capsys):
    _, url = uci_site
    monkeypatch.setenv("PRECMP_DATA", str(tmp_path / "cache"))
    assert download._main(["download", "banknote", "--base-url", url, "--no-progress"]) == 0
    assert capsys.readouterr().out.strip().endswith(str(tmp_path / "cache" / "banknote"))
    assert _leftovers(tmp_path / "cache") == ["banknote", f"banknote/{BANKNOTE}"]
    assert load_dataset("banknote").X.shape == (1372, 4)


def test_a_cache_inside_the_package_is_refused(no_mirror, monkeypatch):
    package = Path(data.__file__).resolve().parent

    def files():
        return sorted(p for p in package.rglob("*") if "__pycache__" not in p.parts)

    before = files()
    for folder in (package, package / "_resources" / "cache"):
        with pytest.raises(ValueError, match=r"cache_dir must lie outside the installed package"):
            download_datasets(["banknote"], cache_dir=folder, progress=False)
    monkeypatch.setenv("PRECMP_DATA", str(package / "data"))
    with pytest.raises(ValueError, match=r"Set PRECMP_DATA or pass another folder"):
        download_datasets(["banknote"], progress=False)
    assert files() == before


# --------------------------------------------------------------------------------------------
# files shipped inside the package
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["datasets.csv", "paper_tables.csv", "deep_digits_predictions.csv", "examples.csv",
     "examples/digits_wide.csv", "examples/breast_cancer_cv_long.csv"],
)
def test_shipped_resources_are_inside_the_package(name):
    path = data.resource_path(name)
    assert path.is_file()
    assert path.resolve().is_relative_to(Path(data.__file__).resolve().parents[1] / "_resources")
    assert data.resource_text(name) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name", ["", "/etc/passwd", "../data.py", "examples/../datasets.csv", "C:/x.csv", 3]
)
def test_resource_names_must_be_plain_relative_paths(name):
    with pytest.raises(ValueError, match="name must be a file name relative to the package's resources"):
        data.resource_path(name)


def test_a_missing_resource_is_named():
    with pytest.raises(FileNotFoundError, match=r"precmp_lib ships no resource 'nope\.csv'"):
        data.resource_text("nope.csv")


def test_example_predictions_point_at_shipped_files():
    ex = data.example_predictions()
    assert ex["name"].tolist() == ["digits_wide", "breast_cancer_cv"]
    for path, y_true in zip(ex["predictions"], ex["y_true"]):
        assert Path(path).is_absolute() and Path(path).is_file()
        assert y_true in pd.read_csv(path, nrows=1).columns
