"""Translator backends behind one protocol (see :mod:`mtdebias.translators.base`)."""

from .base import BaseTranslator, Scored, Translator, UnsupportedCall

__all__ = ["BaseTranslator", "Scored", "Translator", "UnsupportedCall"]
