#!/usr/bin/env python3
"""Writes the KEYS section of man/aptop.1 from `aptop --keys` (the one key table), or with
--check says whether the man page is up to date. Usage: man_keys.py [--check] APTOP MANPAGE"""
import subprocess, sys


def roff(text):
    text = text.replace('\\', '\\e')
    return ('\\&' + text) if text[:1] in ('.', "'") else text


def keys_block(binary):
    out = subprocess.run([binary, '--keys'], capture_output=True, text=True, check=True).stdout
    lines = ['.PD 0']
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(' '):
            lines.append('.SS ' + roff(line.strip()))
            continue
        keys, _, help_text = line.strip().partition('  ')
        lines += ['.TP', '.B ' + roff(keys.strip()), roff(help_text.strip())]
    return lines + ['.PD']


def main():
    check = '--check' in sys.argv
    args = [a for a in sys.argv[1:] if a != '--check']
    binary, man = args
    page = open(man, encoding='utf-8').read().split('\n')
    begin = page.index('.\\" KEYS-BEGIN (generated from the key table: aptop --keys)')
    end = page.index('.\\" KEYS-END')
    new = page[:begin + 1] + keys_block(binary) + page[end:]
    if check:
        if new != page:
            print('man page KEYS section differs from aptop --keys; run make man')
            return 1
        print('man page KEYS section matches aptop --keys')
        return 0
    open(man, 'w', encoding='utf-8').write('\n'.join(new))
    return 0


if __name__ == '__main__':
    sys.exit(main())
