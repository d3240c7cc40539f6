"""youra's download step: fetch one URL into ../out/download, at most CAP bytes.
Run by `youra data fetch` in its own sandbox (network on, writable only its own folder);
youra hashes the file, checks it and moves it into the run's data/ itself."""
import os
import sys
import urllib.request

def main():
    url, cap = sys.argv[1], int(sys.argv[2])
    if not (url.startswith("http://") or url.startswith("https://")):
        sys.exit("only http(s) URLs are fetched")
    out = os.path.join("..", "out")
    os.makedirs(out, exist_ok=True)
    got = 0
    with urllib.request.urlopen(url, timeout=60) as r, open(os.path.join(out, "download"), "wb") as f:
        while True:
            chunk = r.read(1 << 16)
            if not chunk:
                break
            got += len(chunk)
            if got > cap:
                sys.exit(f"the download is larger than {cap} bytes: stopped")
            f.write(chunk)
    print(f"fetched {got} bytes")

if __name__ == "__main__":
    main()
