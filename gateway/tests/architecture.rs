//! The workspace's crates form a tree: the kernel (`gateway-core`) depends on
//! no other crate of the workspace, each service crate on the kernel alone,
//! and only the binary on the services. Read from `cargo metadata`, so a new
//! dependency between two crates fails here before it tangles the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Each workspace crate and the workspace crates it may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("gateway-core", &[]),
    ("gateway-rest", &["gateway-core"]),
    ("gateway-auth", &["gateway-core"]),
    ("gateway-storage", &["gateway-core"]),
    ("gateway-realtime", &["gateway-core"]),
    ("gateway-functions", &["gateway-core"]),
    // The Realtime benchmark's bare server and client (bench/wsfanout): a
    // yardstick, so it shares no code with what it measures.
    ("wsfanout", &[]),
    // The REST benchmark's floor (bench/floor): the gateway's parts without
    // the gateway, so none of its crates.
    ("floor", &[]),
    (
        "gateway",
        &[
            "gateway-core",
            "gateway-rest",
            "gateway-auth",
            "gateway-storage",
            "gateway-realtime",
            "gateway-functions",
        ],
    ),
];

fn workspace_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<String> =
        packages.iter().filter_map(|p| p["name"].as_str()).map(str::to_owned).collect();
    packages
        .iter()
        .map(|package| {
            let name = package["name"].as_str().expect("name").to_owned();
            let dependencies = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                // Normal and build dependencies: what the crate's code can import.
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str())
                .filter(|d| names.contains(*d))
                .map(str::to_owned)
                .collect();
            (name, dependencies)
        })
        .collect()
}

#[test]
fn the_kernel_imports_no_service_and_no_service_imports_another() {
    let graph = workspace_dependencies();
    for (name, allowed) in ALLOWED {
        let actual = graph.get(*name).unwrap_or_else(|| panic!("{name} is a workspace crate"));
        let allowed: BTreeSet<String> = allowed.iter().map(|a| (*a).to_owned()).collect();
        let extra: Vec<&String> = actual.difference(&allowed).collect();
        assert!(extra.is_empty(), "{name} depends on {extra:?}, which the layers forbid");
    }
}

#[test]
fn every_workspace_crate_has_its_place_in_the_tree() {
    let graph = workspace_dependencies();
    let known: BTreeSet<&str> = ALLOWED.iter().map(|(name, _)| *name).collect();
    for name in graph.keys() {
        assert!(
            known.contains(name.as_str()),
            "{name} is new: give it its allowed dependencies in tests/architecture.rs"
        );
    }
}
