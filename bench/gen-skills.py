#!/usr/bin/env python3
"""Write a synthetic Agent Skills folder with N skills, for benchmarks.

    gen-skills.py N OUTDIR            # OUTDIR must not exist yet
    gen-skills.py N OUTDIR --seed 7

Deterministic for a given N and seed. Skill i is named, and routed on, the
way bench/gen-agent.py names plane i (same word lists, imported from it),
so bench/mcpbench's request vocabulary hits the same skills in an agent
file and in a folder. Each skill is OUTDIR/NAME/SKILL.md: frontmatter with
name, description and metadata triggers (most with inputs and a tool
command, docs/skill-folders.md §4), then a Markdown body of ~1.2-1.8 KB.
About one skill in five links to one or two earlier skills with relative
Markdown links (dependencies, never cycles), one in four has
references/notes.md linked from its body, and one in ten a scripts/run.sh.
The folder scans with no findings.
"""
import importlib.util
import os
import random
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gen_agent", os.path.join(_here, "gen-agent.py"))
gen_agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_agent)


def skill(i, names, rng):
    """Returns (name, SKILL.md text, {relative path: text}) of skill i."""
    name, verb, noun, qual = gen_agent.skill_name(i)
    triggers = [f"{verb} {noun}", verb, noun, f"{verb} the {qual} {noun}"]
    triggers += rng.sample(["batch", "quickly", "report back", "dry run", "for review"], rng.randint(0, 2))
    inputs = [(nm, rng.choice(gen_agent.TYPES), rng.random() < 0.2)
              for nm in rng.sample(gen_agent.INPUT_NAMES, rng.randint(0, 4))]
    meta = [f'  triggers: "{", ".join(triggers)}"']
    if inputs:
        meta.append('  inputs: "' + ", ".join(f"{a}:{t}{'?' if opt else ''}" for a, t, opt in inputs) + '"')
        if rng.random() < 0.75:
            binary = rng.choice(gen_agent.BINARIES)
            meta.append(f'  tool: "{binary} {verb} ' + " ".join(f"{{{a}}}" for a, _, _ in inputs) + '"')
    deps = []
    if i > 1 and rng.random() < 0.2:
        deps = sorted(set(rng.randrange(i) for _ in range(rng.randint(1, 2))))
    files = {}
    text = gen_agent.body(name, verb, noun, rng, [])
    if deps:
        links = ", ".join(f"[{names[d]}](../{names[d]}/SKILL.md)" for d in deps)
        text += f"\n\nBefore finishing, also apply {links}."
    if rng.random() < 0.25:
        files["references/notes.md"] = (
            f"# Notes on {name}\n\nA {noun} larger than the size budget is processed in pages; "
            f"keep each page under a megabyte and {verb} them in order.\n")
        text += "\n\nDetails: [the notes](references/notes.md)."
    if rng.random() < 0.1:
        files["scripts/run.sh"] = f"#!/bin/sh\n# {verb} a {noun}; served as text, never run.\necho {verb} \"$@\"\n"
    front = ["---", f"name: {name}",
             f"description: {verb.capitalize()} a {noun}. Use when asked to {verb} the {qual} {noun} or any {noun}.",
             "metadata:", *meta, "---"]
    return name, "\n".join(front) + "\n" + text + "\n", files


def generate(n, out, seed):
    rng = random.Random(seed * 1_000_003 + n)
    names = [gen_agent.skill_name(i)[0] for i in range(n)]
    os.makedirs(out)
    for i in range(n):
        name, text, files = skill(i, names, rng)
        folder = os.path.join(out, name)
        os.mkdir(folder)
        files["SKILL.md"] = text
        for rel, content in files.items():
            path = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)


def main(argv):
    seed = 42
    if "--seed" in argv:
        k = argv.index("--seed")
        seed = int(argv[k + 1])
        argv = argv[:k] + argv[k + 2:]
    if len(argv) != 2:
        sys.exit(__doc__)
    if os.path.exists(argv[1]):
        sys.exit(f"gen-skills.py: {argv[1]} exists; pass a new directory")
    generate(int(argv[0]), argv[1], seed)


if __name__ == "__main__":
    main(sys.argv[1:])
