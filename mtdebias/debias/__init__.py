"""Encoder embedding debiasing for NMT checkpoints: hard-debias, INLP and LEACE.

See :mod:`mtdebias.debias.apply` for the procedure and :func:`~mtdebias.debias.apply.debias_checkpoint`
for the entry point; :class:`~mtdebias.debias.apply.EncoderDebiaser` is the training-recipe stage;
:mod:`mtdebias.debias.methods` names the erasers.

This file imports nothing: the recipe loader reads the method names from
:mod:`mtdebias.debias.methods`, and Python runs a package's ``__init__`` before any of its
modules, so re-exporting ``apply`` here would load torch to validate a recipe.
"""
