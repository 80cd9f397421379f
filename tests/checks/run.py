#!/usr/bin/env python3
"""Run the independent checks: ../shared/checks/acceptance.py when it is there, then every
tests/checks/*_check.py of this repository (each recomputes one report section from the
capture files). One line per check; exit 0 when nothing that ran is wrong.

  python3 tests/checks/run.py [NAME...]     (NAME: overview, kineto, ...; default all)
"""
import glob, importlib.util, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checklib  # noqa: E402


def main(argv):
    aptop = checklib.find_binary()
    if not aptop:
        print('build/aptop not found: run make first')
        return 2
    if not checklib.real_dir():
        print('skipped: %s not found (the real captures)' % checklib.REAL)
        return 0
    failed = 0
    shared = os.path.join(os.path.dirname(checklib.REAL), 'checks', 'acceptance.py')
    if not argv and os.path.isfile(shared):
        failed |= subprocess.run([sys.executable, shared], cwd=checklib.ROOT).returncode != 0
    for path in sorted(glob.glob(os.path.join(checklib.HERE, '*_check.py'))):
        name = os.path.basename(path)[:-len('_check.py')]
        if argv and name not in argv:
            continue
        spec = importlib.util.spec_from_file_location(name + '_check', path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        msg, ok = mod.check(aptop)
        print('%-34s %s   %s' % (name, 'ok  ' if ok else 'FAIL', msg))
        failed |= not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
