#!/usr/bin/env python3
"""Decodes a PNG file and prints what a test needs to judge a screenshot.

Usage: png_summary.py FILE

Prints one JSON object: {"width", "height", "colours" (distinct pixel values,
counted up to 10000), "off_background" (the share of pixels that differ from
the top-left one)}. Exits 1, naming the fault, when the file is not a PNG
this decoder reads: a bad signature, a chunk whose CRC does not match, no
IHDR or IEND, a colour type other than greyscale, RGB or RGBA at 8 bits, an
interlaced image, or image data that does not inflate to the rows the header
promises. Uses zlib and nothing outside Python's standard library.
"""
import json
import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 6: 4}  # colour type -> samples per pixel


def fail(why):
    print(f"png_summary.py: {why}", file=sys.stderr)
    sys.exit(1)


def chunks(data):
    at = len(SIGNATURE)
    while at + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if len(body) != length or zlib.crc32(kind + body) != crc:
            fail(f"chunk {kind!r} at byte {at} is cut short or fails its CRC")
        yield kind, body
        at += 12 + length


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        if len(line) != stride:
            fail("the image data is shorter than its rows")
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + paeth(a, b, c)) & 0xFF
            elif kind != 0:
                fail(f"unknown filter type {kind}")
        rows.append(bytes(line))
        prev = line
    return rows


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(SIGNATURE):
        fail("not a PNG: the signature is wrong")
    header, idat, ended = None, b"", False
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            ended = True
    if header is None or not ended:
        fail("no IHDR or no IEND chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace != 0:
        fail(f"unsupported: bit depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = CHANNELS[colour]
    try:
        raw = zlib.decompress(idat)
    except zlib.error as e:
        fail(f"the image data does not inflate: {e}")
    rows = unfilter(raw, width, height, bpp)
    background = rows[0][:bpp]
    colours, off = set(), 0
    for row in rows:
        for x in range(0, len(row), bpp):
            pixel = row[x:x + bpp]
            if pixel != background:
                off += 1
            if len(colours) < 10000:
                colours.add(pixel)
    print(json.dumps({"width": width, "height": height, "colours": len(colours),
                      "off_background": off / max(1, width * height)}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: png_summary.py FILE")
    main(sys.argv[1])
