"""Runs a program confined by Landlock (Linux 5.13+), which needs no privilege, namespace or
setuid helper: it works for an unprivileged user in a container where bubblewrap cannot run.

    landlock.py [--ro PATH]... [--rw PATH]... [--sockets DIR]... -- PROGRAM ARG...

The program (and everything it starts) may read and execute only beneath the --ro paths, read
and write only beneath the --rw paths, create and remove only sockets in the --sockets folders,
read its own /proc entry, and use /dev/null, /dev/zero and the random devices. Where the kernel
can (Landlock ABI 4 and 6) it may not open TCP connections, reach abstract sockets or signal
processes outside. Exits 70 without running the program when Landlock is not available.
"""
import ctypes
import os
import struct
import sys

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def fail(message, code=70):
    sys.stderr.write(f"landlock: {message}\n")
    sys.exit(code)


def abi():
    version = libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return version if version > 0 else 0


def main(argv):
    if "--" not in argv:
        fail("usage: landlock.py [--ro PATH]... [--rw PATH]... [--sockets DIR]... -- PROGRAM ARG...", 64)
    split = argv.index("--")
    options, program = argv[:split], argv[split + 1:]
    rules = {"--ro": [], "--rw": [], "--sockets": []}
    for flag, value in zip(options[0::2], options[1::2]):
        if flag not in rules:
            fail(f"unknown option {flag}", 64)
        rules[flag].append(value)
    version = abi()
    if version < 1:
        fail("this kernel does not offer Landlock")
    if not program:
        return 0  # a probe: Landlock is there

    handled = (1 << 13) - 1  # ABI 1
    if version >= 2:
        handled |= REFER
    if version >= 3:
        handled |= TRUNCATE
    if version >= 5:
        handled |= IOCTL_DEV
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0
    if version >= 6:
        attr = struct.pack("=QQQ", handled, net, scoped)
    elif version >= 4:
        attr = struct.pack("=QQ", handled, net)
    else:
        attr = struct.pack("=Q", handled)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(SYS_CREATE_RULESET, buffer, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        fail(f"cannot create a ruleset (errno {ctypes.get_errno()})")

    def allow(path, access):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # a path this system does not have
        try:
            if not os.path.isdir(path):
                access &= FILE_ONLY
            access &= handled
            rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
            if libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), rule, ctypes.c_uint32(0)) != 0:
                fail(f"cannot allow {path} (errno {ctypes.get_errno()})")
        finally:
            os.close(fd)

    read = EXECUTE | READ_FILE | READ_DIR
    for path in rules["--ro"]:
        allow(path, read)
    for path in rules["--rw"]:
        allow(path, handled)
    for path in rules["--sockets"]:
        allow(path, MAKE_SOCK | REMOVE_FILE)
    # Its own /proc entry (this process becomes the program: exec keeps the pid), not its parent's.
    allow(f"/proc/{os.getpid()}", READ_FILE | READ_DIR)
    for path in ("/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/proc/filesystems", "/sys/devices/system/cpu"):
        allow(path, READ_FILE | READ_DIR)
    for path in ("/dev/null", "/dev/zero"):
        allow(path, READ_FILE | WRITE_FILE)
    for path in ("/dev/urandom", "/dev/random"):
        allow(path, READ_FILE)

    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail("cannot set no_new_privs")
    if libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        fail(f"cannot restrict itself (errno {ctypes.get_errno()})")
    os.close(ruleset)
    try:
        os.execvp(program[0], program)
    except OSError as error:
        fail(f"cannot run {program[0]}: {error}", 71)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
