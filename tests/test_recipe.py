import pytest

from mtdebias.errors import ConfigError
from mtdebias.recipe import load_recipe

BASE = """
[run]
name = "r"
[data]
train_src = "train.en"
train_tgt = "train.de"
src_lang = "en"
tgt_lang = "de"
"""


@pytest.fixture
def recipe_dir(tmp_path):
    (tmp_path / "train.en").write_text("a\n")
    (tmp_path / "train.de").write_text("b\n")
    return tmp_path


def write(recipe_dir, text):
    path = recipe_dir / "r.toml"
    path.write_text(text)
    return path


def test_valid_recipe_resolves_paths_and_defaults(recipe_dir):
    recipe = load_recipe(write(recipe_dir, BASE + "[train]\nepochs = 3\n"))
    assert recipe.train.epochs == 3 and recipe.model.preset == "tiny"
    assert recipe.data.train_src == recipe_dir / "train.en"
    with pytest.raises(Exception):  # frozen
        recipe.train.epochs = 4  # type: ignore[misc]


def test_unknown_key_suggests_the_right_one(recipe_dir):
    with pytest.raises(ConfigError, match="unknown key 'train.epoch'.*did you mean 'epochs'"):
        load_recipe(write(recipe_dir, BASE + "[train]\nepoch = 3\n"))


def test_unknown_table(recipe_dir):
    with pytest.raises(ConfigError, match=r"unknown table \[trian\].*did you mean 'train'"):
        load_recipe(write(recipe_dir, BASE + "[trian]\nepochs = 3\n"))


def test_wrong_type_and_bad_choice(recipe_dir):
    with pytest.raises(ConfigError, match="train.epochs must be an integer"):
        load_recipe(write(recipe_dir, BASE + "[train]\nepochs = \"three\"\n"))
    with pytest.raises(ConfigError, match="model.preset = 'huge' is not one of"):
        load_recipe(write(recipe_dir, BASE + "[model]\npreset = \"huge\"\n"))


def test_missing_file_named(recipe_dir):
    with pytest.raises(ConfigError, match="data.dev_src = 'dev.en': file not found"):
        load_recipe(write(recipe_dir, BASE.replace('tgt_lang = "de"', 'tgt_lang = "de"\ndev_src = "dev.en"\ndev_tgt = "dev.de"')))


def test_overrides_are_validated_like_the_file(recipe_dir):
    path = write(recipe_dir, BASE)
    assert load_recipe(path, ["train.epochs=7", "run.name=other"]).train.epochs == 7
    with pytest.raises(ConfigError, match="unknown key 'train.epohcs'"):
        load_recipe(path, ["train.epohcs=7"])
    with pytest.raises(ConfigError, match="must be a number"):
        load_recipe(path, ["train.lr=fast"])
