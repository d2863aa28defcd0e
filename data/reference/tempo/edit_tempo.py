"""Make a system run from the TEMPO collection by editing its time attributes.

python3 edit_tempo.py CD OUT SEED: every TEMPO entity of the CD is kept as it is or, by a
seeded draw, gets one edit: a year of VAL_NORM shifted, another SENTIDO, VAL_DELTA dropped,
another TEMPO_REF, a VAL_DELTA written in other units (1 day as 24 hours), an hour changed,
a duration changed, or the entity dropped (its text kept).  The bytes stay ISO-8859-1.
"""

import random
import re
import sys

cd, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
text = open(cd, encoding="iso-8859-1").read()
SENTIDOS = ["ANTERIOR", "POSTERIOR", "SIMULT", "ANTERIOR_OU_SIMULT", "POSTERIOR_OU_SIMULT"]
REFS = ["ABSOLUTO", "TEXTUAL", "ENUNCIACAO"]


def edit(match: re.Match) -> str:
    tag = match.group(0)
    if 'CATEG="TEMPO' not in tag:
        return tag
    kind = rng.choice(["keep", "keep", "year", "sentido", "nodelta", "ref", "units", "hour",
                       "duration", "drop", "month"])
    if kind == "year":
        tag = re.sub(r'VAL_NORM="([+-])(\d{4})', lambda m: f'VAL_NORM="{m[1]}{int(m[2]) + 1:04d}', tag)
    elif kind == "month":
        tag = re.sub(r'VAL_NORM="([+-].{4})(\d\d)', lambda m: f'VAL_NORM="{m[1]}{(int(m[2]) % 12) + 1:02d}', tag)
    elif kind == "sentido":
        tag = re.sub(r'SENTIDO="([A-Z_]+)"', lambda m: f'SENTIDO="{rng.choice([s for s in SENTIDOS if s != m[1]])}"', tag)
    elif kind == "nodelta":
        tag = re.sub(r' VAL_DELTA="[^"]*"', "", tag)
    elif kind == "ref":
        tag = re.sub(r'TEMPO_REF="([A-Z]+)"', lambda m: f'TEMPO_REF="{rng.choice([r for r in REFS if r != m[1]])}"', tag)
    elif kind == "units":
        tag = tag.replace('VAL_DELTA="A0M0S0D1H0M0S0"', 'VAL_DELTA="A0M0S0D0H24M0S0"')
        tag = tag.replace('VAL_DELTA="A1M0S0D0H0M0S0"', 'VAL_DELTA="A0M12S0D0H0M0S0"')
    elif kind == "hour":
        tag = re.sub(r'T(\d\d)(\d\d|--)E', lambda m: f"T{(int(m[1]) + 1) % 24:02d}{m[2]}E", tag)
    elif kind == "duration":
        tag = re.sub(r'VAL_NORM="A(\d+)M(\d+)S(\d+)D(\d+)', lambda m: f'VAL_NORM="A{m[1]}M{m[2]}S{m[3]}D{int(m[4]) + 1}', tag)
    elif kind == "drop":
        return "\x00DROP\x00"
    return tag


text = re.sub(r"<EM [^>]*>", edit, text)
text = re.sub(r"\x00DROP\x00(.*?)</EM>", r"\1", text, flags=re.S)
open(out, "w", encoding="iso-8859-1", newline="").write(text)
