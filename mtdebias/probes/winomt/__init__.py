"""WinoMT (Stanovsky et al. 2019): gender accuracy, ΔG and ΔS of professions in translation (probe.py)."""
