"""Recipes: TOML files parsed into typed, frozen, validated config objects."""

from .schema import (AblateConfig, AugmentConfig, DataConfig, DebiasConfig, EvalConfig, ModelConfig, Recipe,
                     RunConfig, TokenizerConfig, TrainConfig)
from .load import apply_overrides, load_recipe, parse_recipe, recipe_to_dict

__all__ = ["AblateConfig", "AugmentConfig", "DataConfig", "DebiasConfig", "EvalConfig", "ModelConfig", "Recipe",
           "RunConfig", "TokenizerConfig", "TrainConfig", "apply_overrides", "load_recipe",
           "parse_recipe", "recipe_to_dict"]
