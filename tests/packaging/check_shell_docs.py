"""The man pages and the bash and zsh completions against the programs' --help.

    python3 tests/packaging/check_shell_docs.py TRAINYARD TRAINYARD_WORKER

Every command `trainyard --help` lists, and every long option of each
command's --help and of `trainyard-worker --help`, must be in the bash
completion (asked by calling its function), the zsh completion and the man
page, under that command; and they must name no command or option the
programs lack. So the three cannot drift from the programs.
"""

import os
import re
import subprocess
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGING = os.path.join(SOURCE, "packaging")
COMMON = {"--help", "--version"}
FAILURES = []


def compare(what, documented, actual, pending=False):
    """Both directions; a pending command's options are not checked yet."""
    if pending:
        return
    if actual - documented:
        FAILURES.append("%s lacks %s" % (what, " ".join(sorted(actual - documented))))
    if documented - actual:
        FAILURES.append("%s names %s, which the program does not have" % (what, " ".join(sorted(documented - actual))))


def output(argv):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          env=env, timeout=60, check=True).stdout


def help_options(text):
    """The long options of a trainyard help's Options: section."""
    section = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", section, re.M))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def bash_complete(script, function, words, cwd):
    """What the bash completion offers for `words` (the last one being completed)."""
    code = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); %s; printf "%%s\\n" "${COMPREPLY[@]}"' \
        % function
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", code, "bash", script] + words, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
    if done.returncode != 0 or done.stderr:
        FAILURES.append("bash completion of %r: exit %d %s" % (" ".join(words), done.returncode, done.stderr.strip()))
    return {line for line in done.stdout.splitlines() if line}


def man_text(path):
    """The man page's source with its escapes made plain: \\- is -, fonts gone."""
    text = read(path)
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\-", "-").replace("\\%", "")


def man_sections(text, macro):
    """{heading: body} of each .SH or .SS."""
    out = {}
    parts = re.split(r"^\.(SH|SS) (.*)$", text, flags=re.M)
    for i in range(1, len(parts) - 2, 3):
        if parts[i] == macro:
            out[parts[i + 1].strip('"')] = parts[i + 2].split("\n.SH ", 1)[0]
    return out


def long_options(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def man_options(text):
    """The long options a man page section describes: each .TP item's tag line."""
    return long_options("\n".join(re.findall(r"^\.TP\n(.*)$", text, re.M)))


def zsh_case_blocks(text):
    """{command: its case block's text} of the zsh completion's `case $cmd in`."""
    out = {}
    for names, body in re.findall(r"^\s*\(([a-z|-]+)\)\n(.*?);;", text, re.M | re.S):
        for name in names.split("|"):
            out[name] = body
    return out


def zsh_options(text):
    """The long options an _arguments spec offers: '--x[...' and {-h,--help}."""
    found = set(re.findall(r"'(?:\*|\([^)]*\))?(--[a-z][a-z0-9-]*)\[", text))
    found |= set(re.findall(r"\{-\w,(--[a-z][a-z0-9-]*)\}", text))
    return found


def main():
    trainyard, worker = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="trainyard-shell-docs-")  # empty: no files among the completions

    top = output([trainyard, "--help"])
    commands = set(re.findall(r"^Usage: trainyard ([a-z][a-z-]*)\b", top, re.M))
    if len(commands) < 5:
        FAILURES.append("trainyard --help lists only the commands %s" % sorted(commands))
    options = {c: help_options(output([trainyard, c, "--help"])) for c in commands}
    documented_commands = commands
    top_options = help_options(top)

    bash = os.path.join(PACKAGING, "completion", "trainyard.bash")
    zsh = read(os.path.join(PACKAGING, "completion", "_trainyard"))
    man = man_text(os.path.join(PACKAGING, "man", "trainyard.1"))

    # The commands.
    offered = bash_complete(bash, "_trainyard", ["trainyard", ""], work)
    compare("bash completion's commands", offered, documented_commands)
    compare("bash completion's options of trainyard", bash_complete(bash, "_trainyard", ["trainyard", "--"], work),
            top_options)
    zsh_commands = set(re.findall(r"^\s+'([a-z][a-z-]*):", zsh.split("commands=(", 1)[1].split(")", 1)[0], re.M))
    compare("zsh completion's commands", zsh_commands, documented_commands)
    headings = man_sections(man, "SS")
    man_commands = {c for h in headings for c in re.findall(r"trainyard ([a-z][a-z-]*)", h)}
    compare("trainyard.1's COMMANDS", man_commands, documented_commands)
    compare("trainyard.1's OPTIONS", man_options(man_sections(man, "SH").get("OPTIONS", "")), top_options)

    # Each command's options.
    blocks = zsh_case_blocks(zsh)
    for command in sorted(documented_commands):
        actual = options.get(command, set())
        pending = command not in commands
        compare("bash completion of trainyard %s" % command,
                bash_complete(bash, "_trainyard", ["trainyard", command, "--"], work), actual, pending)
        compare("zsh completion of trainyard %s" % command, zsh_options(blocks.get(command, "")) | COMMON, actual,
                pending)
        body = "".join(b for h, b in headings.items() if re.search(r"trainyard %s\b" % command, h))
        compare("trainyard.1 on trainyard %s" % command, man_options(body) | COMMON, actual, pending)

    # The worker.
    actual = long_options(output([worker, "--help"]))
    if len(actual) < 8:
        FAILURES.append("trainyard-worker --help lists only %s" % sorted(actual))
    compare("bash completion of trainyard-worker",
            bash_complete(os.path.join(PACKAGING, "completion", "trainyard-worker.bash"), "_trainyard_worker",
                          ["trainyard-worker", "--"], work), actual)
    compare("zsh completion of trainyard-worker", zsh_options(read(os.path.join(PACKAGING, "completion",
                                                                                "_trainyard-worker"))), actual)
    worker_man = man_text(os.path.join(PACKAGING, "man", "trainyard-worker.1"))
    compare("trainyard-worker.1's OPTIONS", man_options(man_sections(worker_man, "SH").get("OPTIONS", "")), actual)

    os.rmdir(work)
    for text in FAILURES:
        print("check_shell_docs: " + text)
    if FAILURES:
        sys.exit(1)
    print("ok: %d commands, their options and trainyard-worker's, in the man pages and completions"
          % len(commands))


if __name__ == "__main__":
    main()
