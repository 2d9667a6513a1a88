"""The glossary's words, declared once: README.md's `## Glossary` defines each, and a command's text ends with one
line naming those it used, so a learner who meets "Grappler" or "IQR" in the output knows where it is explained.

Each word has the forms it takes in the output (`RETRACED`, `fused`, `tf2-eager`); a test keeps this list and the
README's entries the same.
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["Word", "WORDS", "ANCHOR", "words_in", "words_line", "with_words"]

ANCHOR = "README.md#glossary"


@dataclasses.dataclass(frozen=True)
class Word:
    term: str  # as the README's entry spells it: `- **term**: ...`
    forms: str  # a regular expression (case-insensitive unless it says otherwise) for its forms in the text

    def found(self, text: str) -> re.Match | None:
        return re.search(self.forms, text)


def _w(term: str, forms: str, case: bool = False) -> Word:
    return Word(term, forms if case else f"(?i:{forms})")


WORDS = (
    _w("Grappler", r"\bGrappler\b"),
    _w("remapping", r"\bremap(ping|per)\b"),
    _w("constant folding", r"\bconstant[ _-]folding\b|\bconstfold\b"),
    _w("HLO", r"\bHLO\b", case=True),
    _w("XLA / jit_compile", r"\bxla\b|\bjit_compile\b"),
    _w("fusion", r"\bfus(ion|ions|ed|es)\b"),
    _w("concrete function", r"\bconcrete[ _]functions?\b"),
    _w("trace / retrace", r"\b(re)?trac(e|es|ed|ing)\b"),
    _w("AutoGraph", r"\bautograph\b"),
    _w("tf.function", r"\btf\.function\b"),
    _w("Session", r"\bSession\b", case=True),
    _w("eager execution", r"\beager\b"),
    _w("oneDNN", r"\bonednn\b"),
    _w("median", r"\bmedians?\b"),
    _w("IQR", r"\bIQR\b", case=True),
    _w("95% confidence interval", r"\b95% (confidence )?interval|\b95% CI\b"),
    _w("noise floor", r"\bnoise floor\b"),
    _w("NOISY", r"\bNOISY\b", case=True),
    _w("speed-up", r"\bspeed-?ups?\b|>\s?1 is faster"),
    _w("first call vs steady state", r"\bfirst calls?\b|\bsteady\b"),
    _w("GEMM rate", r"\bGEMM\b", case=True),
    _w("op-bound", r"\bop-bound\b|µs/op"),
    _w("BFC allocator", r"\bBFC\b", case=True),
    _w("round / block", r"\brounds?\b|\bblocks? of\b|\bblock /|/ mode block\b"),
    _w("judged interval", r"\bjudged intervals?\b"),
    _w("lever", r"\blevers?\b"),
    _w("partial conversion", r"\bpartial conversion\b|\btf2-partial\b"),
    _w("Stateless ops", r"\bStateless(If|While|Case|Random\w*)\b", case=True),
)


def words_in(text: str) -> list[str]:
    """The glossary words the text uses, in the order of their first use."""
    found = [(m.start(), w.term) for w in WORDS if (m := w.found(text))]
    return [term for _, term in sorted(found)]


def words_line(text: str) -> str | None:
    """`words: Grappler, HLO, fusion: see README.md#glossary`, or None when the text uses none."""
    terms = words_in(text)
    return f"words: {', '.join(terms)}: see {ANCHOR}" if terms else None


def with_words(text: str) -> str:
    """The text and, under it, the one line naming its glossary words (the text alone when it has none)."""
    line = words_line(text)
    return f"{text}\n{line}" if line else text
