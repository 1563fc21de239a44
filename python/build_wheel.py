"""Writes the `loom` wheel (PEP 427) from built files: //python:wheel.

    build_wheel.py OUT.whl VERSION TAG ARCHIVE_PATH=FILE...

TAG is "<python>-<abi>-<platform>" (cp311-cp311-linux_x86_64). The
metadata asks for numpy and protobuf (Debian's python3-numpy and
python3-protobuf; a virtual environment made with --system-site-packages
sees them, so `pip install --no-index` works offline)."""
import base64
import hashlib
import sys
import zipfile


def main(argv):
    out, version, tag = argv[1:4]
    files = [a.split("=", 1) for a in argv[4:]]
    dist = "loom-%s.dist-info" % version
    meta = {
        dist + "/METADATA": "\n".join([
            "Metadata-Version: 2.1",
            "Name: loom",
            "Version: " + version,
            "Summary: Loom: a plugin-based operator framework for neural networks (inference and training)",
            "Requires-Python: >=3.9",
            "Requires-Dist: numpy",
            "Requires-Dist: protobuf",
            "",
        ]),
        dist + "/WHEEL": "\n".join([
            "Wheel-Version: 1.0",
            "Generator: loom build_wheel.py",
            "Root-Is-Purelib: false",
            "Tag: " + tag,
            "",
        ]),
        dist + "/top_level.txt": "loom\n",
        # pip makes these executables in the environment's bin/.
        dist + "/entry_points.txt": "[console_scripts]\nloom_quantize = loom.quantize:main\n",
    }
    record = []
    # Fixed timestamps: the same inputs give the same wheel.
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        def add(path, data, mode):
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (path, digest, len(data)))

        for path, src in sorted(files):
            with open(src, "rb") as f:
                add(path, f.read(), 0o755 if path.endswith(".so") else 0o644)
        for path, text in meta.items():
            add(path, text.encode(), 0o644)
        record.append(dist + "/RECORD,,")
        info = zipfile.ZipInfo(dist + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        z.writestr(info, "\n".join(record) + "\n")


if __name__ == "__main__":
    main(sys.argv)
