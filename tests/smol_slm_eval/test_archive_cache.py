"""Where smol_slm_eval keeps its downloaded archives: one cache per user, not one per folder.

`$SLM_EVAL_CACHE` wins; without it the user's cache directory (XDG: `$XDG_CACHE_HOME`, else
`~/.cache`) holds `slm_eval/`, whatever folder the command is run from.
"""

import pytest
from smol_slm_eval import archives

pytestmark = pytest.mark.unit


@pytest.fixture
def no_override(monkeypatch, tmp_path):
    monkeypatch.delenv("SLM_EVAL_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return tmp_path


def test_the_default_cache_is_the_users_whatever_the_current_folder(no_override, monkeypatch):
    seen = set()
    for folder in ("a", "b"):
        (no_override / folder).mkdir()
        monkeypatch.chdir(no_override / folder)
        seen.add(archives.cache_dir())
    assert seen == {no_override / "home" / ".cache" / "slm_eval"}


def test_xdg_cache_home_is_honoured(no_override, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(no_override / "xdg"))
    assert archives.cache_dir() == no_override / "xdg" / "slm_eval"


def test_slm_eval_cache_still_wins(no_override, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(no_override / "xdg"))
    monkeypatch.setenv("SLM_EVAL_CACHE", str(no_override / "mine"))
    assert archives.cache_dir() == no_override / "mine"


def test_an_archive_cached_from_one_folder_is_found_from_another(no_override, monkeypatch):
    """The real lookup: a wheel in the default cache is not looked for (and downloaded again)
    under the current folder. The checksum check runs on it, so a wrong file is refused there."""
    wheel = archives.cache_dir() / "archives" / archives.BFCL_EVAL.filename
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"not the wheel")
    (no_override / "elsewhere").mkdir()
    monkeypatch.chdir(no_override / "elsewhere")
    with pytest.raises(archives.DataError, match=str(wheel)):
        archives.cached(archives.BFCL_EVAL)
