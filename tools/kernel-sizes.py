#!/usr/bin/env python3
"""Where the plugin's bytes are: the CUDA fatbin of each kernel family's
translation unit, per arch and kind (machine code, PTX), as stored
(compressed or not) and, where the fatbin records it, unpacked. Reads the
object files of a build; needs no GPU and no cuobjdump.

    tools/kernel-sizes.py [BUILD_DIR]     (default: build)
"""
import collections
import glob
import os
import struct
import subprocess
import sys

FATBIN_MAGIC = 0xBA55ED50


def fatbin_section(path):
    """The bytes of the .nv_fatbin section of an object file."""
    out = subprocess.run(["objdump", "-h", path], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        cols = line.split()
        if len(cols) > 6 and cols[1] == ".nv_fatbin":
            size, offset = int(cols[2], 16), int(cols[5], 16)
            with open(path, "rb") as f:
                f.seek(offset)
                return f.read(size)
    return b""


def entries(data):
    """(kind, sm, stored bytes, unpacked bytes or 0) of each fatbin entry.
    A fatbin is a header (magic, version, header size, size of what
    follows) and entries, each a header (kind 1 = PTX, 2 = ELF; its size;
    the payload's) whose 28th byte holds the SM and 56th the unpacked size
    of a compressed payload."""
    pos = 0
    while pos + 16 <= len(data):
        magic, _, header, size = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:
            pos += 8
            continue
        entry, end = pos + header, pos + header + size
        while entry < end:
            kind, _, eheader, payload = struct.unpack_from("<HHIQ", data, entry)
            sm = struct.unpack_from("<I", data, entry + 28)[0]
            unpacked = (struct.unpack_from("<Q", data, entry + 56)[0]
                        if eheader >= 64 else 0)
            yield ("PTX" if kind == 1 else "ELF"), sm, payload, unpacked
            entry += eheader + payload
        pos = end


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    objects = sorted(glob.glob(os.path.join(
        build, "kernels", "libcudaconv-kernels-cuda.a.p", "*.o")))
    if not objects:
        sys.exit(f"no CUDA kernel objects under {build}/kernels")
    columns = set()
    rows = {}
    for path in objects:
        unit = os.path.basename(path).split("_.._")[-1].replace("-build.cu.o", "")
        stored = collections.Counter()
        unpacked = collections.Counter()
        for kind, sm, payload, full in entries(fatbin_section(path)):
            stored[(kind, sm)] += payload
            unpacked[(kind, sm)] += full or payload
        columns.update(stored)
        rows[unit] = (stored, unpacked)
    columns = sorted(columns, key=lambda c: (c[0], c[1]))
    print("MB stored (MB unpacked) per translation unit, arch and kind")
    print("%-22s" % "unit" + "".join("%18s" % f"{k} sm_{sm}" for k, sm in columns)
          + "%18s" % "all")
    totals = [collections.Counter(), collections.Counter()]
    for unit, (stored, unpacked) in sorted(rows.items(),
                                           key=lambda r: -sum(r[1][0].values())):
        cells = ["%9.2f (%5.2f)" % (stored[c] / 1e6, unpacked[c] / 1e6)
                 for c in columns]
        print("%-22s" % unit + "".join("%18s" % c for c in cells) +
              "%18s" % ("%9.2f (%5.2f)" % (sum(stored.values()) / 1e6,
                                          sum(unpacked.values()) / 1e6)))
        totals[0].update(stored)
        totals[1].update(unpacked)
    print("%-22s" % "all" + "".join(
        "%18s" % ("%9.2f (%5.2f)" % (totals[0][c] / 1e6, totals[1][c] / 1e6))
        for c in columns) + "%18s" % ("%9.2f (%5.2f)" % (
            sum(totals[0].values()) / 1e6, sum(totals[1].values()) / 1e6)))


if __name__ == "__main__":
    main()
