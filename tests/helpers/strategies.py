"""Hypothesis strategies shared by the Vizir and Ida2Mor property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from harem_pipeline.model import Morf
from harem_pipeline.stages.vizir import Alignment, SystemEntity

GENDER = st.sampled_from(["M", "F", "?"])
NUMBER = st.sampled_from(["S", "P", "?"])
MORPH = st.builds(Morf, GENDER, NUMBER)
# Texts whose first atoms agree or not ("Abril" / "17 de Abril"), so the first-atom rule bites.
TEXT = st.sampled_from(
    ["Abril", "17 de Abril", "Reportagem", "a Reportagem", "Reportagem Local", "Lisboa"]
)
ENTITY = st.builds(SystemEntity, TEXT, st.none() | MORPH, st.booleans())
ALIGNMENT = st.builds(
    Alignment,
    TEXT,
    st.none() | MORPH,
    st.booleans(),
    st.none() | st.lists(ENTITY, min_size=1, max_size=3).map(tuple),
)
