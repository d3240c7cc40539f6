//! Following values: through names, overwrites, fallbacks, functions and imports.

use super::*;
use crate::audit::python::parse;

fn kinds(files: &[(&str, &str)], module: usize, key: &str) -> Vec<RootKind> {
    let program = Program::new(files.iter().map(|(p, t)| parse(p, t).unwrap()).collect());
    let flow = Flow::new(&program);
    let site = program.modules[module]
        .sites
        .iter()
        .find(|s| s.key == key)
        .expect("the site");
    let roots = flow.value(module, site.scope, &site.value, site.line);
    let mut k: Vec<RootKind> = roots.iter().map(|r| r.kind).collect();
    k.dedup();
    k
}

#[test]
fn values_are_followed_to_their_roots() {
    use RootKind::*;
    for (src, want) in [
        (
            "d = pd.read_csv('a')\nr = {'acc': d.mean()}\n",
            vec![Loader],
        ),
        (
            "d = pd.read_csv('a')\nd = np.random.rand(9)\nr = {'acc': d.mean()}\n",
            vec![Generator],
        ),
        (
            "try:\n    d = load_dataset('x')\nexcept E:\n    d = make_blobs()\nr = {'acc': f(d)}\n",
            vec![Loader, Generator],
        ),
        ("acc = 0.9\nr = {'acc': acc}\n", vec![Literal]),
        ("r = {'acc': 0.8 + random.gauss(0, 0.01)}\n", vec![Noise]),
        // A number beside a computed part is a scale or offset, not the value.
        (
            "r = {'acc': 1.0 / (1.0 + kl)}\n",
            vec![Constant, Unresolved],
        ),
        (
            "kl = np.load('k.npy')\nr = {'acc': 1.0 / (1.0 + kl)}\n",
            vec![Loader, Constant],
        ),
        ("r = {'acc': passed * 100}\n", vec![Constant, Unresolved]),
        // A bound beside a count is no value: `hit / max(len(found), 1)`.
        (
            "r = {'acc': hit / max(len(found), 1)}\n",
            vec![Constant, Unresolved],
        ),
        // A computed value stepped or scaled in place stays computed.
        (
            "q = np.load('a').mean()\nq *= 0.9\nr = {'acc': q}\n",
            vec![Loader, Constant],
        ),
        // A dispatcher whose generated data sets outnumber its loaded one two to one.
        (
            "def get(n):\n    if n == 'moons':\n        return make_moons(100)\n    elif n == 'line':\n        return np.random.uniform(0, 1, 100)\n    elif n == 'dino':\n        return pd.read_csv('dino.tsv')\n    return np.random.rand(100)\nr = {'acc': get('moons').mean()}\n",
            vec![Generator],
        ),
        // Two loaded, one generated: both stay.
        (
            "def get(n):\n    if n == 'a':\n        return pd.read_csv('a.csv')\n    elif n == 'b':\n        return pd.read_csv('b.csv')\n    return np.random.rand(100)\nr = {'acc': get('a').mean()}\n",
            vec![Loader, Generator],
        ),
        // A literal scaled by a literal is still a literal.
        (
            "base = 0.8\nr = {'acc': base * 1.05}\n",
            vec![Literal, Constant],
        ),
        // Labels drawn against a rate are generated data; a metric drawn so is an outcome.
        (
            "X = np.random.randn(9, 2)\ny = (np.random.rand(9) < p).astype(int)\nr = {'acc': fit(X, y)}\n",
            vec![Generator, Unresolved],
        ),
        (
            "ok = random.random() < 0.7\nr = {'acc': ok}\n",
            vec![Outcome],
        ),
        (
            "def ev(x):\n    return {'acc': x.mean()}\nev(pd.read_csv('a'))\n",
            vec![Loader],
        ),
        (
            "def get():\n    return 0.91\nr = {'acc': get()}\n",
            vec![Literal],
        ),
        (
            "class Model:\n    def __init__(self):\n        self.d = np.load('a')\n    def score(self):\n        return {'acc': self.d.mean()}\n",
            vec![Loader],
        ),
        ("d = pd.read_csv('a')\nr = {'acc': len(d)}\n", vec![]),
    ] {
        assert_eq!(kinds(&[("t.py", src)], 0, "acc"), want, "{src}");
    }
}

#[test]
fn values_cross_local_imports() {
    let files = [
        ("pkg/data.py", "def load():\n    return np.loadtxt('x')\n"),
        (
            "main.py",
            "from pkg.data import load\nr = {'acc': load().mean()}\n",
        ),
    ];
    assert_eq!(kinds(&files, 1, "acc"), [RootKind::Loader]);
    let files = [
        ("utils.py", "def load():\n    return np.random.randn(5)\n"),
        (
            "main.py",
            "import utils\nr = {'acc': utils.load().mean()}\n",
        ),
    ];
    assert_eq!(kinds(&files, 1, "acc"), [RootKind::Generator]);
}

#[test]
fn recursion_and_self_reference_end() {
    let src = "def f(x):\n    return f(x) + g(x)\ndef g(x):\n    return f(x)\nx = x + 1\nr = {'acc': f(x)}\n";
    assert_eq!(kinds(&[("t.py", src)], 0, "acc"), Vec::<RootKind>::new());
}
