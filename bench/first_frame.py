#!/usr/bin/env python3
"""Opens a capture in aptop on a pseudo-terminal and prints how long the first frame took
(until the header's view tabs are on the screen) and how long `q` took to end the program
while the trace was still loading. Usage: first_frame.py APTOP PATH"""
import os, pty, select, sys, time


def main():
    aptop, path = sys.argv[1], sys.argv[2]
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(TERM='xterm-256color', LANG='C.UTF-8', LINES='48', COLUMNS='160')
        os.execv(aptop, [aptop, path])
    out = b''
    first = None
    while time.monotonic() - t0 < 10:
        r, _, _ = select.select([fd], [], [], 0.005)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
            # the header's view tabs: a large trace opens on the Overview, others on the Timeline
            if b'Timeline' in out or b'Overview' in out:
                first = time.monotonic() - t0
                break
    if first is None:
        print('first frame: not seen within 10 s')
        os.kill(pid, 9)
        return 1
    loading = b'%' in out or b'loading' in out.lower()
    tq = time.monotonic()
    os.write(fd, b'q')
    while True:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        try:
            select.select([fd], [], [], 0.002)
            os.read(fd, 65536)
        except OSError:
            pass
        if time.monotonic() - tq > 10:
            os.kill(pid, 9)
            break
    quit_ms = (time.monotonic() - tq) * 1000
    print('first frame %.1f ms; q %s: exited in %.1f ms' %
          (first * 1000, 'during the load' if loading else 'after the load', quit_ms))
    return 0


if __name__ == '__main__':
    sys.exit(main())
