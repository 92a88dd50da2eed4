import pytest

from mtdebias.errors import InputError
from mtdebias.textio import read_lines, read_parallel


def test_parallel_files_of_different_length_name_both(tmp_path):
    src, tgt = tmp_path / "a.en", tmp_path / "a.de"
    src.write_text("one\ntwo\nthree\n")
    tgt.write_text("eins\nzwei\n")
    with pytest.raises(InputError) as info:
        read_parallel(src, tgt)
    message = str(info.value)
    assert str(src) in message and str(tgt) in message
    assert "3 lines" in message and "2 lines" in message


def test_invalid_utf8_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("fine\nalso fine\n".encode() + b"caf\xe9\n")
    with pytest.raises(InputError) as info:
        read_lines(bad)
    assert info.value.line == 3 and info.value.path == str(bad)
    assert "UTF-8" in str(info.value)


def test_empty_lines_skipped_on_both_sides_and_counted(tmp_path):
    src, tgt = tmp_path / "s", tmp_path / "t"
    src.write_text("a\n\nc\n   \ne\n")
    tgt.write_text("A\nB\n\nD\nE\n")
    corpus = read_parallel(src, tgt)
    assert corpus.sources == ["a", "e"] and corpus.targets == ["A", "E"]
    assert corpus.skipped_empty == 3
    assert corpus.line_numbers == [1, 5]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_lines(tmp_path / "nope.txt")
