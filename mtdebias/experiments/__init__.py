"""Experiments: a recipe taken from data through a model to training (:mod:`.pipeline`) and an
ablation's grid × seeds of such runs, compared with paired tests (:mod:`.ablation`)."""
