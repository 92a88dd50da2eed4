"""Translator backends behind one protocol (see :mod:`mtdebias.translators.base`)."""

from .base import Scored, Translator, UnsupportedCall

__all__ = ["Scored", "Translator", "UnsupportedCall"]
