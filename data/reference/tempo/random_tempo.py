"""Write a seeded file of made-up Emir records for the TEMPO track's rules.

python3 random_tempo.py OUT SEED [COUNT]: COUNT (default 400) records, each a golden
entity and zero to two system entities (or [null], or a spurious golden side), with
TEMPO attributes drawn from the values the rules tell apart: dates and hours with
digits, dashes, zeros and odd fields, the unknown value, open limits, durations and
deltas in several units (leading zeros too), empty values, values left out, other
SENTIDO and TEMPO_REF, other subtypes, and classic values such as 1.7999999999999998
or 1.0E-4.  The records are not any system's output: they exist to hold the port
to the awk, rule by rule, on inputs no collection has.
"""

import random
import sys

out, seed = sys.argv[1], int(sys.argv[2])
count = int(sys.argv[3]) if len(sys.argv) > 3 else 400
rng = random.Random(seed)
REFS = ["ABSOLUTO", "TEXTUAL", "ENUNCIACAO"]
SENTIDOS = ["ANTERIOR", "POSTERIOR", "SIMULT", "ANTERIOR_OU_SIMULT", "POSTERIOR_OU_SIMULT"]
NUMBERS = ["0.0", "1.0", "2.4875", "1.7999999999999998", "4.954166666666667", "2.3",
           "0.5", "1.0E-4", "3", "10.25"]


def field(width: int) -> str:
    kind = rng.random()
    if kind < 0.3:
        return "-" * width
    if kind < 0.45:
        return "0" * width
    if kind < 0.5:
        return "0" + "-" * (width - 1)
    if kind < 0.55 and width > 2:
        return "19" + "-" * (width - 2)
    return "".join(rng.choice("0123456789") for _ in range(width))


def date() -> str:
    if rng.random() < 0.1:
        return rng.choice("+-") + "99999999T9999E--LM-"
    era = rng.choice("++++-")
    season = rng.choice(["--", "--", "PR", "VE", "OU", "IN"])
    limit = rng.choice("----ADPE")
    return f"{era}{field(4)}{field(2)}{field(2)}T{field(2)}{field(2)}E{season}LM{limit}"


def delta() -> str:
    parts = [rng.choice(["0", "0", "0", "1", "2", "7", "12", "24", "30", "60", "010", "400"])
             for _ in range(7)]
    return "A{}M{}S{}D{}H{}M{}S{}".format(*parts)


def attributes(tipo: str, sub: str) -> str:
    text = ""
    if rng.random() < 0.6:
        text += f' TEMPO_REF="{rng.choice(REFS)}"'
    if rng.random() < 0.4:
        text += f' SENTIDO="{rng.choice(SENTIDOS)}"'
    roll = rng.random()
    if tipo == "DURACAO":
        if roll < 0.6:
            text += f' VAL_NORM="{delta()}"'
        elif roll < 0.75:
            text += ' VAL_NORM=""'
    elif roll < 0.45:
        text += f' VAL_NORM="{date()}"'
    elif roll < 0.55:
        text += ' VAL_NORM=""'
    if rng.random() < 0.35:
        text += f' VAL_DELTA="{delta() if rng.random() < 0.8 else ""}"'
    return text


def entity(ident: str) -> str:
    tipo = rng.choice(["TEMPO_CALEND", "TEMPO_CALEND", "TEMPO_CALEND", "DURACAO", "FREQUENCIA"])
    sub = rng.choice(["DATA", "DATA", "HORA", "INTERVALO"]) if tipo == "TEMPO_CALEND" else ""
    categ = "TEMPO" if rng.random() < 0.9 else rng.choice(["LOCAL", "TEMPO|VALOR"])
    subtipo = f' SUBTIPO="{sub}"' if sub else ""
    return (f'<EM ID="{ident}" CATEG="{categ}" TIPO="{tipo}"{subtipo}'
            f'{attributes(tipo, sub)}>ontem à noite</EM>')


def item() -> str:
    n = [rng.choice(NUMBERS) for _ in range(3)]
    return ("{Categoria(Correcto:[TEMPO] Espurio:[] Em_Falta:[]) "
            "Tipo(Correcto:[] Espurio:[] Em_Falta:[]) Subtipo(Correcto:[] Espurio:[] Em_Falta:[]) "
            f"MaxCSC_CD({n[0]}) MaxCSC_S({n[1]}) CSC({n[2]}) Peso(1.0)}}")


lines = ["#TEMPO", "DOC r1"]
for i in range(count):
    gold = entity(f"g{i}") if rng.random() < 0.95 else '<EM CATEG="ESPURIO">ontem</EM>'
    systems = rng.choice([0, 1, 1, 1, 1, 2])
    if systems == 0:
        lines.append(f"{gold} ---> [null]::[{item()}]")
    else:
        listed = ", ".join(entity(f"s{i}-{k}") for k in range(systems))
        items = ", ".join(item() for _ in range(systems))
        lines.append(f"{gold} ---> [{listed}]::[{items}]")
    if rng.random() < 0.05:
        lines += ["", f"DOC r{i}"]
open(out, "w", encoding="iso-8859-1", newline="\n").write("\n".join(lines) + "\n")
