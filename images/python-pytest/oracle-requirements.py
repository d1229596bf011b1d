"""Installs a pinned requirements file from Debian's python3-* packages, then verifies the pins.

    python3 oracle-requirements.py apt-names requirements.txt   # prints the Debian package names
    python3 oracle-requirements.py verify requirements.txt      # exit 1 unless every pin is installed
"""

import importlib.metadata
import re
import sys

PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)$")
# Distributions whose Debian package is not python3-<normalised name>.
DEBIAN_NAMES = {
    "attrs": "python3-attr",
    "pyyaml": "python3-yaml",
    "python-dateutil": "python3-dateutil",
    "pytz": "python3-tz",
}


def read_pins(path):
    pins, problems = [], []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            match = PIN.match(line)
            if match is None:
                problems.append(f"{path}:{number}: '{line}' is not an exact pin (name==version)")
            else:
                pins.append(match.groups())
    return pins, problems


def apt_name(name):
    normalised = re.sub(r"[-_.]+", "-", name).lower()
    return DEBIAN_NAMES.get(normalised, f"python3-{normalised}")


def verify(pins):
    problems = []
    for name, wanted in pins:
        try:
            found = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{name}: not installed (Debian package {apt_name(name)})")
            continue
        if found != wanted:
            problems.append(f"{name}: pinned {wanted}, Debian installed {found}")
        else:
            print(f"{name}=={found} ok")
    return problems


def main(argv):
    if len(argv) != 3 or argv[1] not in ("apt-names", "verify"):
        print(__doc__, file=sys.stderr)
        return 2
    pins, problems = read_pins(argv[2])
    if not problems and argv[1] == "apt-names":
        print("\n".join(apt_name(name) for name, _ in pins))
    elif not problems:
        problems = verify(pins)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
