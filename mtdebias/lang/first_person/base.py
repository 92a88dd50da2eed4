"""Shared vocabulary of the first-person speaker detectors.

A GEST translation says who "I" is only through agreement: a past-tense verb («я была»),
a short or predicative adjective («готова», «jsem laskavý»), «сам/сама», a conditional
(«mogłabym»). Each language module finds the words whose subject is the speaker and turns
each into a :class:`SpeakerCue`; :func:`resolve` combines them the same way everywhere:

* no cue → ``undetected`` (the translation does not mark the speaker's gender);
* cues of one gender → that gender;
* cues of both genders → ``undetected`` — the translation contradicts itself («я так устала …
  я на это способен») and we do not pick a side silently.
"""

from __future__ import annotations

from dataclasses import dataclass

MALE, FEMALE, UNDETECTED = "male", "female", "undetected"
SPEAKER_OUTCOMES = (MALE, FEMALE, UNDETECTED)


@dataclass(frozen=True)
class SpeakerCue:
    gender: str  # "male" | "female"
    word: str  # the agreeing word as it stands in the translation
    reason: str  # why this word belongs to the speaker


@dataclass(frozen=True)
class SpeakerDetection:
    gender: str  # "male" | "female" | "undetected"
    cues: tuple[SpeakerCue, ...]
    note: str = ""  # why undetected, when it is

    @property
    def evidence(self) -> list[str]:
        out = [f"{c.gender}: '{c.word}' ({c.reason})" for c in self.cues]
        return out + ([self.note] if self.note else [])


def resolve(cues: list[SpeakerCue]) -> SpeakerDetection:
    genders = {c.gender for c in cues}
    if not genders:
        return SpeakerDetection(UNDETECTED, (), "no word agreeing with the speaker")
    if len(genders) > 1:
        return SpeakerDetection(UNDETECTED, tuple(cues), "contradictory: the speaker is marked both ways")
    return SpeakerDetection(genders.pop(), tuple(cues))
