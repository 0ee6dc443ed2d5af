# SPDX-License-Identifier: GPL-2.0-or-later
"""Real crates built offline from the sources Debian packages.

Debian ships crate sources as librust-CRATE-dev, in
/usr/share/cargo/registry; cargo builds from them without the network
through a directory source replacement.  The benchmarks (bench/) and the
tests on real code (tests/e2e/realcode.py) share this.
"""
import json
import os
import re
import shutil
import subprocess

REGISTRY = "/usr/share/cargo/registry"
CARGO_CONFIG = """[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "%s"
[net]
offline = true
""" % REGISTRY


def package(crate):
    return "librust-%s-dev" % crate.replace("_", "-")


def sources(crate, install=False):
    """The directory of the newest packaged version of @crate, or None;
    with @install (and root), its package is installed when missing."""
    pkg = package(crate)
    have = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                          capture_output=True, text=True).stdout
    if install and "install ok installed" not in have and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq",
                        "--no-install-recommends", pkg],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dirs = [d for d in os.listdir(REGISTRY) if d.startswith(crate + "-")
            and d[len(crate) + 1:][:1].isdigit()] if os.path.isdir(REGISTRY) else []
    if not dirs:
        return None
    key = lambda d: [int(x) if x.isdigit() else x
                     for x in re.split(r"[.-]", d[len(crate) + 1:])]
    return os.path.join(REGISTRY, max(dirs, key=key))


def copy_sources(from_dir, src):
    """@from_dir copied to @src once (again when it changes)."""
    stamp = os.path.join(src, ".from")
    mtime = max(os.path.getmtime(os.path.join(d, f))
                for d, _, fs in os.walk(from_dir) for f in fs)
    key = "%s %d" % (from_dir, mtime)
    if os.path.exists(stamp) and open(stamp).read() == key:
        return
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(from_dir, src, symlinks=True,
                    ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    for junk in (".cargo-checksum.json",):
        if os.path.exists(os.path.join(src, junk)):
            os.remove(os.path.join(src, junk))
    with open(stamp, "w") as f:
        f.write(key)


def cargo():
    """cargo on PATH, else rustup's; None when neither."""
    home = os.path.expanduser("~/.cargo/bin/cargo")
    return shutil.which("cargo") or (home if os.access(home, os.X_OK) else None)


def build(name, from_dir, cargo_args, out, env=None):
    """The executable `cargo @cargo_args` builds, offline, from a copy of
    @from_dir under @out (sources, target and cargo's configuration);
    (None, cargo's messages) when it builds none."""
    src = os.path.join(out, "src", name)
    os.makedirs(os.path.join(out, ".cargo"), exist_ok=True)
    with open(os.path.join(out, ".cargo", "config.toml"), "w") as f:
        f.write(CARGO_CONFIG)
    copy_sources(from_dir, src)
    env = dict(env or os.environ, CARGO_INCREMENTAL="0", CARGO_TERM_COLOR="never")
    env["PATH"] = os.path.expanduser("~/.cargo/bin") + ":" + env.get("PATH", "")
    env.pop("CARGO_TARGET_DIR", None)
    env.pop("MAKEFLAGS", None)  # no jobserver of make's to warn about
    p = subprocess.run([cargo() or "cargo"] + cargo_args +
                       ["--offline", "--target-dir", os.path.join(out, "target", name),
                        "--message-format=json-render-diagnostics"],
                       cwd=src, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    for line in p.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable"):
            return m["executable"], ""
    return None, p.stderr[-3000:]
