import pytest

from conftest import sha256_bytes
from uqval._internal.errors import FetchError
from uqval.pipeline.fetch import configured_mirrors, fetch_file, sha256_file
from uqval.pipeline.registry import RegisteredFile

CONTENT = b"E,uE\n0.1,0.2\n"


def entry(sha=None, url=None):
    return RegisteredFile(path="FAM/a.csv", sha256=sha or sha256_bytes(CONTENT), url=url, family="FAM")


@pytest.fixture
def mirror(tmp_path):
    m = tmp_path / "mirror"
    (m / "FAM").mkdir(parents=True)
    (m / "FAM" / "a.csv").write_bytes(CONTENT)
    return m


def test_mirror_copy_is_verified(tmp_path, mirror):
    dest = tmp_path / "data" / "FAM" / "a.csv"
    result = fetch_file(entry(), dest, mirrors=[tmp_path / "empty", mirror])
    assert dest.read_bytes() == CONTENT
    assert result.source == f"mirror:{mirror}" and result.sha256 == sha256_file(dest)


def test_checksum_mismatch_leaves_nothing(tmp_path, mirror):
    dest = tmp_path / "data" / "FAM" / "a.csv"
    with pytest.raises(FetchError, match=r"checksum mismatch for 'FAM/a.csv'.*expected sha256 0{64}"):
        fetch_file(entry(sha="0" * 64), dest, mirrors=[mirror])
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == []  # no temporary file left either


def test_download_from_url(tmp_path, mirror):
    dest = tmp_path / "out" / "a.csv"
    url = (mirror / "FAM" / "a.csv").as_uri()
    result = fetch_file(entry(url=url), dest, mirrors=[])
    assert result.source == url and dest.read_bytes() == CONTENT


def test_offline_without_mirror_explains_the_options(tmp_path):
    url = (tmp_path / "nowhere.csv").as_uri()
    with pytest.raises(FetchError) as info:
        fetch_file(entry(url=url), tmp_path / "x.csv", mirrors=[tmp_path], attempts=2, backoff=0)
    msg = str(info.value)
    assert "FAM: cannot obtain 'FAM/a.csv'" in msg
    assert url in msg and "after 2 attempts" in msg
    assert "data_mirror" in msg and "UQVAL_DATA_MIRROR" in msg
    assert not (tmp_path / "x.csv").exists()


def test_unpinned_checksum_is_refused(tmp_path, mirror):
    unpinned = RegisteredFile(path="FAM/a.csv", sha256=None, url=None, family="FAM")
    with pytest.raises(FetchError, match="no pinned SHA-256"):
        fetch_file(unpinned, tmp_path / "x.csv", mirrors=[mirror])


def test_configured_mirrors_are_normalised_and_deduplicated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("UQVAL_DATA_MIRROR", str(tmp_path / "m"))
    assert configured_mirrors("x/../m/") == [tmp_path.resolve() / "m"]
    monkeypatch.delenv("UQVAL_DATA_MIRROR")
    assert configured_mirrors(None) == []
