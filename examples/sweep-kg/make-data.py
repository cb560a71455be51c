#!/usr/bin/env python3
"""Writes data/train.txt, valid.txt and test.txt: a small made-up map.

The knowledge graph sweep-kg.json trains on: 4 continents, 12 countries
and 48 cities, with located_in, part_of, capital_of, neighbour_of and
borders between them (one tab-separated head, relation, tail per line, as
the worker's "kg" data reads). Deterministic: running it again writes the
same files, so the ones shipped beside it are what it makes.
"""
import os
import random

CONTINENTS = 4
COUNTRIES_PER = 3
CITIES_PER = 4


def triples():
    out = []
    for k in range(CONTINENTS):
        continent = "continent_%d" % k
        countries = ["country_%d_%d" % (k, c) for c in range(COUNTRIES_PER)]
        for i, country in enumerate(countries):
            out.append((country, "part_of", continent))
            # Countries of a continent border each other in a ring.
            other = countries[(i + 1) % len(countries)]
            out.append((country, "borders", other))
            out.append((other, "borders", country))
            cities = ["city_%d_%d_%d" % (k, i, t) for t in range(CITIES_PER)]
            out.append((cities[0], "capital_of", country))
            for j, city in enumerate(cities):
                out.append((city, "located_in", country))
                if j + 1 < len(cities):
                    out.append((city, "neighbour_of", cities[j + 1]))
                    out.append((cities[j + 1], "neighbour_of", city))
    return out


def main():
    rows = triples()
    random.Random(7).shuffle(rows)
    held = len(rows) // 10
    train, valid, test = rows[2 * held:], rows[:held], rows[held:2 * held]
    # Every entity a held-out triple names is seen in training.
    seen = {e for h, _, t in train for e in (h, t)}
    for part in (valid, test):
        for row in list(part):
            if row[0] not in seen or row[2] not in seen:
                part.remove(row)
                train.append(row)
                seen.update((row[0], row[2]))
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    os.makedirs(folder, exist_ok=True)
    for name, part in (("train", train), ("valid", valid), ("test", test)):
        with open(os.path.join(folder, name + ".txt"), "w") as f:
            f.writelines("%s\t%s\t%s\n" % row for row in part)


if __name__ == "__main__":
    main()
