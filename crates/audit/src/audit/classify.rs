//! What a call is by its name, when no local definition says otherwise: a loader of real
//! data, a generator of random numbers, a mock back-end, a count, a seed, or a wrapper
//! that passes its argument's value through (`round`, `np.mean`). A table, with a test.

/// The kind of a call named `callee` (dotted text, e.g. `torchvision.datasets.MNIST`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    Loader,
    Generator,
    Mock,
    /// `len`, `.count()`: a number about the data, not the data.
    Count,
    /// `np.random.seed(0)`: fixes the draws, makes no data.
    Seed,
    /// `round(x, 4)`, `np.mean(x)`: the value of its argument, reshaped.
    Wrapper,
    Other,
}

const GENERATOR_MODULES: [&str; 4] = [
    "random.",
    "np.random.",
    "numpy.random.",
    "torch.distributions.",
];
const LOADER_CALLS: [&str; 21] = [
    "open",
    "load",
    "loadtxt",
    "genfromtxt",
    "fromfile",
    "load_dataset",
    "load_from_disk",
    "reader",
    "DictReader",
    "read_text",
    "read_bytes",
    "imread",
    "urlopen",
    "load_data",
    "read_sql",
    "read_sql_query",
    "memmap",
    "load_svmlight_file",
    "ImageFolder",
    "DatasetFolder",
    "load_files",
];
/// `json.loads(text)` parses text already in memory (an LLM's reply, a file read
/// elsewhere): its value is its argument's, which is followed.
const WRAPPERS: [&str; 17] = [
    "round", "float", "int", "abs", "mean", "median", "sum", "min", "max", "item", "tolist",
    "float64", "float32", "tensor", "array", "asarray", "loads",
];

/// Whether a name (a class, a module, a function) says it stands in for a real back-end.
pub(crate) fn mock_name(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let lower = last.to_ascii_lowercase();
    ["mock", "fake", "simulated", "stub", "dummy"]
        .iter()
        .any(|w| lower.starts_with(w) || lower.contains(&format!("_{w}")))
        || ["MagicMock", "Mock"].contains(&last)
}

/// Whether a function's name says it stands in for what it should measure
/// (`generate_mock_results`, `simulated_response`, `fake_scores`, `create_dummy_logs`): a
/// mock word and a result word (the logs a write-up quotes are results). `create_dummy_input` (a shape for tracing a model) is neither.
pub(crate) fn mock_result_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let mock = mock_name(name)
        || ["mock", "fake", "simulated", "dummy"]
            .iter()
            .any(|w| lower.contains(&format!("_{w}_")));
    mock && [
        "result", "metric", "score", "response", "output", "eval", "answer", "accurac", "logs",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Whether a function name says it makes data up (`generate_synthetic_data`, `simulate_users`).
fn generator_name(last: &str) -> bool {
    let lower = last.to_ascii_lowercase();
    lower.contains("synthetic")
        || lower.starts_with("simulate")
        || lower.starts_with("make_")
        || lower.starts_with("generate_") && lower.contains("data")
}

/// Words that name a data set or its parts in an assignment's target (`X_train`,
/// `test_ds`, `self.samples`): what the census of data sources looks at.
const DATA_WORDS: [&str; 27] = [
    "data",
    "dataset",
    "datasets",
    "ds",
    "df",
    "train",
    "test",
    "val",
    "valid",
    "validation",
    "samples",
    "inputs",
    "features",
    "labels",
    "targets",
    "points",
    "corpus",
    "examples",
    "texts",
    "sequences",
    "images",
    "observations",
    "tasks",
    "docs",
    "documents",
    "questions",
    "prompts",
];

/// Whether an assignment's target names data (`X`, `y_test`, `x0`, `train_ds`,
/// `self.data`), not a model, a counter or a setting (`rng`, `noise`, `idx`, `lr`).
pub fn data_name(target: &str) -> bool {
    let last = target
        .rsplit('.')
        .next()
        .unwrap_or(target)
        .to_ascii_lowercase();
    let mut parts = last.split('_').filter(|p| !p.is_empty());
    let Some(first) = parts.next() else {
        return false;
    };
    let xy = |p: &str| {
        let mut c = p.chars();
        matches!(c.next(), Some('x' | 'y')) && c.all(|c| c.is_ascii_digit())
    };
    xy(first)
        || std::iter::once(first)
            .chain(parts)
            .any(|p| DATA_WORDS.contains(&p))
}

pub fn kind(callee: &str) -> CallKind {
    let last = callee.rsplit('.').next().unwrap_or(callee);
    if last.contains("seed") {
        return CallKind::Seed;
    }
    if matches!(last, "len" | "count" | "nunique" | "numel" | "shape") {
        return CallKind::Count;
    }
    if mock_name(last) {
        return CallKind::Mock;
    }
    let generator_module = GENERATOR_MODULES
        .iter()
        .any(|m| callee.starts_with(m) || callee.contains(&format!(".{m}")));
    if generator_module && !last.starts_with("get_state")
        || callee.starts_with("torch.")
            && matches!(
                last,
                "rand"
                    | "randn"
                    | "randint"
                    | "randperm"
                    | "normal"
                    | "bernoulli"
                    | "multinomial"
                    | "rand_like"
                    | "randn_like"
            )
        || matches!(last, "default_rng" | "RandomState" | "Faker")
        || callee.starts_with("sklearn.datasets.make_")
        || generator_name(last)
    {
        return CallKind::Generator;
    }
    // `torchvision.datasets.MNIST(...)`, `tfds.load`, `keras.datasets.mnist.load_data()`.
    // `openml.datasets.get_dataset(61)`: a data sets module's getter.
    let dataset_class = callee.contains("datasets.")
        && (last.chars().next().is_some_and(char::is_uppercase) || last.starts_with("get_"));
    // `self.fetch_f()`, `self.load_batch()`: the output's own method, not a library's
    // loader; what it returns is followed through its definition or stays unknown.
    let own_method = callee.starts_with("self.");
    let named_loader = dataset_class
        || LOADER_CALLS.contains(&last)
        || last.starts_with("read_")
        || last.starts_with("fetch_")
        || last.starts_with("load_");
    if !own_method && named_loader
        || callee.starts_with("requests.get")
        || callee.starts_with("Image.open")
    {
        return CallKind::Loader;
    }
    if WRAPPERS.contains(&last) {
        return CallKind::Wrapper;
    }
    CallKind::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_sorted_by_name() {
        use CallKind::*;
        for (callee, want) in [
            ("torchvision.datasets.MNIST", Loader),
            ("datasets.CIFAR10", Loader),
            ("load_dataset", Loader),
            ("pd.read_csv", Loader),
            ("csv.DictReader", Loader),
            ("open", Loader),
            ("sklearn.datasets.fetch_openml", Loader),
            ("load_iris", Loader),
            ("np.random.rand", Generator),
            ("np.random.default_rng", Generator),
            ("default_rng", Generator),
            ("random.random", Generator),
            ("random.gauss", Generator),
            ("torch.randint", Generator),
            ("make_classification", Generator),
            ("generate_synthetic_data", Generator),
            ("np.random.seed", Seed),
            ("torch.manual_seed", Seed),
            ("random.seed", Seed),
            ("MockLLM", Mock),
            ("FakeClient", Mock),
            ("unittest.mock.MagicMock", Mock),
            ("len", Count),
            ("round", Wrapper),
            ("json.loads", Wrapper),
            ("np.mean", Wrapper),
            ("model.fit", Other),
            ("openml.datasets.get_dataset", Loader),
            ("self.fetch_f", Other),
            ("self.load_batch", Other),
            ("self.data.read_text", Other),
            ("accuracy_score", Other),
        ] {
            assert_eq!(kind(callee), want, "{callee}");
        }
    }

    #[test]
    fn stand_in_functions_are_told_from_dummy_inputs() {
        for (name, want) in [
            ("generate_mock_results", true),
            ("simulated_response", true),
            ("fake_scores", true),
            ("MockLLM", false),
            ("create_dummy_input", false),
            ("create_dummy_logs", true),
            ("setup_logs", false),
            ("create_mock_logger", false),
            ("simulate_user", false),
            ("generate_results", false),
            ("evaluate", false),
        ] {
            assert_eq!(mock_result_name(name), want, "{name}");
        }
    }

    #[test]
    fn data_names_are_told_from_models_counters_and_settings() {
        for (target, want) in [
            ("X", true),
            ("y", true),
            ("x0", true),
            ("X_train", true),
            ("y_test", true),
            ("self.data", true),
            ("train_ds", true),
            ("squad_dataset", true),
            ("df", true),
            ("rng", false),
            ("noise", false),
            ("idx", false),
            ("xs_model", false),
            ("lr", false),
            ("theta_true", false),
            ("self.model", false),
            ("", false),
        ] {
            assert_eq!(data_name(target), want, "{target}");
        }
    }
}
