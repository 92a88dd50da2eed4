from mtdebias.signature import Signature, comparable, hash_checkpoint, hash_lines, hash_text


def test_signature_round_trip_and_comparability():
    sig = Signature("winomt.v1", data=hash_text("data"), model="abc", settings={"beam": 5, "eps": 0.02}, seed=3)
    text = str(sig)
    assert text.startswith("winomt.v1|mtdebias:")
    assert "settings:beam=5,eps=0.02" in text and text.endswith("|seed:3")
    parsed = Signature.parse(text)
    assert parsed.model == "abc" and parsed.seed == 3 and parsed.settings == {"beam": "5", "eps": "0.02"}
    other_model = Signature("winomt.v1", data=hash_text("data"), model="xyz", settings={"beam": 5, "eps": 0.02}, seed=3)
    other_beam = Signature("winomt.v1", data=hash_text("data"), model="abc", settings={"beam": 1, "eps": 0.02}, seed=3)
    assert comparable(sig, other_model)
    assert not comparable(sig, other_beam)


def test_hashes_are_content_hashes(tmp_path):
    assert hash_lines(["a", "b"]) == hash_text("a\nb\n")
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text("{}")
    (ckpt / "optimizer.pt").write_bytes(b"state")
    first = hash_checkpoint(ckpt)
    (ckpt / "optimizer.pt").write_bytes(b"other state")  # optimizer state is not the model
    assert hash_checkpoint(ckpt) == first
    (ckpt / "config.json").write_text('{"d_model": 8}')
    assert hash_checkpoint(ckpt) != first
