//! The rules a routine must keep to be saved: one start, every node
//! reachable from it, an end reachable from every node, no cycles, every
//! reference to a node that exists, and every condition with a default.
//! Together they make every run finish: each step moves along an edge of an
//! acyclic graph whose only nodes without a way on are ends (the property
//! test in `run` checks this on random graphs).

use std::collections::{HashMap, HashSet};

use deskmate_protocol::routine::{NodeKind, Routine, RoutineNode, RoutineProblem};

/// Every code a problem can carry (`RoutineProblem::code`); the window has
/// words for each (`ROUTINE_PROBLEM_CODES` in ui/src/protocol.ts).
pub const PROBLEM_CODES: [&str; 17] = [
    "routine.no_name",
    "routine.no_id",
    "routine.duplicate_id",
    "routine.no_start",
    "routine.many_starts",
    "routine.no_end",
    "routine.end_has_next",
    "routine.condition_has_next",
    "routine.no_branches",
    "routine.empty_keyword",
    "routine.no_default",
    "routine.missing_next",
    "routine.incomplete",
    "routine.unknown_node",
    "routine.unreachable",
    "routine.cycle",
    "routine.no_way_to_end",
];

/// Every problem with `routine`, or nothing when it can be saved and run.
/// Problems come in a stable order: the node list first, then the graph.
pub fn validate(routine: &Routine) -> Vec<RoutineProblem> {
    let mut problems = Vec::new();
    let mut say = |code: &str, node: Option<&str>, message: String| {
        problems.push(RoutineProblem {
            code: format!("routine.{code}"),
            node: node.map(str::to_string),
            message,
        })
    };
    if routine.name.trim().is_empty() {
        say("no_name", None, "The routine needs a name.".into());
    }
    let mut ids: HashMap<&str, &RoutineNode> = HashMap::new();
    for node in &routine.nodes {
        if node.id.trim().is_empty() {
            say("no_id", None, "A node has no id.".into());
        } else if ids.insert(node.id.as_str(), node).is_some() {
            say(
                "duplicate_id",
                Some(&node.id),
                format!("Two nodes are called \"{}\".", node.id),
            );
        }
    }
    let starts: Vec<&RoutineNode> = routine
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Start))
        .collect();
    match starts.len() {
        0 => say("no_start", None, "The routine has no start node.".into()),
        1 => {}
        n => say(
            "many_starts",
            Some(&starts[1].id),
            format!("The routine has {n} start nodes; it needs exactly one."),
        ),
    }
    if !routine
        .nodes
        .iter()
        .any(|n| matches!(n.kind, NodeKind::End))
    {
        say("no_end", None, "The routine has no end node.".into());
    }

    for node in &routine.nodes {
        let id = node.id.as_str();
        match &node.kind {
            NodeKind::End => {
                if node.next.is_some() {
                    say(
                        "end_has_next",
                        Some(id),
                        format!("The end node \"{id}\" cannot lead anywhere."),
                    );
                }
            }
            NodeKind::Condition { branches, default } => {
                if node.next.is_some() {
                    say(
                        "condition_has_next",
                        Some(id),
                        format!(
                            "The condition \"{id}\" chooses by its branches and default, not by next."
                        ),
                    );
                }
                if branches.is_empty() {
                    say(
                        "no_branches",
                        Some(id),
                        format!("The condition \"{id}\" has no branch."),
                    );
                }
                for b in branches {
                    if b.keyword.trim().is_empty() {
                        say(
                            "empty_keyword",
                            Some(id),
                            format!("A branch of \"{id}\" has no keyword to look for."),
                        );
                    }
                }
                if default.is_none() {
                    say(
                        "no_default",
                        Some(id),
                        format!(
                            "The condition \"{id}\" needs a default branch for when no keyword matches."
                        ),
                    );
                }
            }
            _ => {
                if node.next.is_none() {
                    say(
                        "missing_next",
                        Some(id),
                        format!("\"{id}\" does not say which node comes next."),
                    );
                }
            }
        }
        let empty = |s: &str| s.trim().is_empty();
        let missing = match &node.kind {
            NodeKind::Agent { agent, prompt } if empty(agent) || empty(prompt) => {
                Some("an agent and a prompt")
            }
            NodeKind::Tool { tool, .. } if empty(tool) => Some("a tool"),
            NodeKind::Recite { material } if empty(material) => Some("a poem or text"),
            NodeKind::NotifyParent { message } if empty(message) => Some("a message"),
            _ => None,
        };
        if let Some(what) = missing {
            say("incomplete", Some(id), format!("\"{id}\" needs {what}."));
        }
        for to in successors(node) {
            if !ids.contains_key(to) {
                say(
                    "unknown_node",
                    Some(id),
                    format!("\"{id}\" leads to \"{to}\", which is not a node of this routine."),
                );
            }
        }
    }

    // The graph: only once every reference resolves and there is one start.
    if !problems.is_empty() {
        return problems;
    }
    let start = starts[0].id.as_str();
    let reachable = reach(start, &ids);
    for node in &routine.nodes {
        if !reachable.contains(node.id.as_str()) {
            problems.push(RoutineProblem {
                code: "routine.unreachable".into(),
                node: Some(node.id.clone()),
                message: format!("Nothing leads to \"{}\" from the start.", node.id),
            });
        }
    }
    if let Some(node) = on_a_cycle(&routine.nodes, &ids) {
        problems.push(RoutineProblem {
            code: "routine.cycle".into(),
            node: Some(node.to_string()),
            message: format!(
                "\"{node}\" leads back to itself; a routine must always move on towards an end."
            ),
        });
        return problems;
    }
    for node in &routine.nodes {
        let ends_reachable = reach(&node.id, &ids)
            .iter()
            .any(|id| ids.get(id).is_some_and(|n| matches!(n.kind, NodeKind::End)));
        if !ends_reachable {
            problems.push(RoutineProblem {
                code: "routine.no_way_to_end".into(),
                node: Some(node.id.clone()),
                message: format!("No end can be reached from \"{}\".", node.id),
            });
        }
    }
    problems
}

/// The nodes `node` can lead to.
pub(crate) fn successors(node: &RoutineNode) -> Vec<&str> {
    let mut out: Vec<&str> = node.next.iter().map(String::as_str).collect();
    if let NodeKind::Condition { branches, default } = &node.kind {
        out.extend(branches.iter().map(|b| b.to.as_str()));
        out.extend(default.iter().map(String::as_str));
    }
    out
}

/// Every node reachable from `from` (itself included).
fn reach<'a>(from: &'a str, ids: &HashMap<&'a str, &'a RoutineNode>) -> HashSet<&'a str> {
    let mut seen = HashSet::from([from]);
    let mut todo = vec![from];
    while let Some(id) = todo.pop() {
        if let Some(node) = ids.get(id) {
            for to in successors(node) {
                if let Some((&known, _)) = ids.get_key_value(to) {
                    if seen.insert(known) {
                        todo.push(known);
                    }
                }
            }
        }
    }
    seen
}

/// A node on a cycle, if there is one (depth-first search with colours).
fn on_a_cycle<'a>(
    nodes: &'a [RoutineNode],
    ids: &HashMap<&'a str, &'a RoutineNode>,
) -> Option<&'a str> {
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        Open,
        Done,
    }
    let mut colour: HashMap<&str, Colour> = HashMap::new();
    for root in nodes {
        if colour.contains_key(root.id.as_str()) {
            continue;
        }
        // (node, index of the next successor to look at)
        let mut stack: Vec<(&str, usize)> = vec![(root.id.as_str(), 0)];
        colour.insert(root.id.as_str(), Colour::Open);
        while let Some((id, i)) = stack.pop() {
            let next = ids.get(id).and_then(|n| successors(n).get(i).copied());
            match next {
                Some(to) => {
                    stack.push((id, i + 1));
                    let Some((&to, _)) = ids.get_key_value(to) else {
                        continue;
                    };
                    match colour.get(to) {
                        Some(Colour::Open) => return Some(to),
                        Some(Colour::Done) => {}
                        None => {
                            colour.insert(to, Colour::Open);
                            stack.push((to, 0));
                        }
                    }
                }
                None => {
                    colour.insert(id, Colour::Done);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskmate_protocol::routine::Branch;

    fn node(id: &str, kind: NodeKind, next: Option<&str>) -> RoutineNode {
        RoutineNode {
            id: id.into(),
            kind,
            next: next.map(str::to_string),
            position: None,
        }
    }

    fn agent(id: &str, next: &str) -> RoutineNode {
        node(
            id,
            NodeKind::Agent {
                agent: "companion".into(),
                prompt: "Say hello".into(),
            },
            Some(next),
        )
    }

    fn routine(nodes: Vec<RoutineNode>) -> Routine {
        Routine {
            name: "evening".into(),
            description: String::new(),
            nodes,
            children: vec![],
        }
    }

    fn good() -> Routine {
        routine(vec![
            node("start", NodeKind::Start, Some("plan")),
            agent("plan", "check"),
            node(
                "check",
                NodeKind::Condition {
                    branches: vec![Branch {
                        keyword: "背诵".into(),
                        to: "recite".into(),
                    }],
                    default: Some("end".into()),
                },
                None,
            ),
            node(
                "recite",
                NodeKind::Recite {
                    material: "静夜思".into(),
                },
                Some("end"),
            ),
            node("end", NodeKind::End, None),
        ])
    }

    /// Each problem's code and node.
    type Found = Vec<(String, Option<String>)>;

    fn codes(r: &Routine) -> Found {
        validate(r)
            .into_iter()
            .map(|p| {
                assert!(!p.message.is_empty());
                (p.code, p.node)
            })
            .collect()
    }

    fn one(code: &str, node: Option<&str>) -> Found {
        vec![(format!("routine.{code}"), node.map(str::to_string))]
    }

    #[test]
    fn a_routine_that_keeps_every_rule_has_no_problem() {
        assert_eq!(validate(&good()), vec![]);
    }

    /// Each rule, broken alone, gives its own problem on the node at fault.
    #[test]
    fn each_rule_has_its_problem_and_node() {
        let mut cases: Vec<(&str, Routine, Found)> = Vec::new();

        let mut r = good();
        r.name = " ".into();
        cases.push(("no name", r, one("no_name", None)));

        let mut r = good();
        r.nodes.remove(0);
        cases.push(("no start", r, one("no_start", None)));

        let mut r = good();
        r.nodes.push(node("start2", NodeKind::Start, Some("end")));
        cases.push(("two starts", r, one("many_starts", Some("start2"))));

        let mut r = good();
        r.nodes[1] = agent("plan", "nowhere");
        cases.push(("unknown next", r, one("unknown_node", Some("plan"))));

        let mut r = good();
        r.nodes[1].next = None;
        cases.push(("no next", r, one("missing_next", Some("plan"))));

        let mut r = good();
        r.nodes[4].next = Some("plan".into());
        cases.push(("end leads on", r, one("end_has_next", Some("end"))));

        let mut r = good();
        if let NodeKind::Condition { default, .. } = &mut r.nodes[2].kind {
            *default = None;
        }
        cases.push(("no default", r, one("no_default", Some("check"))));

        let mut r = good();
        if let NodeKind::Condition { branches, .. } = &mut r.nodes[2].kind {
            branches.clear();
        }
        cases.push(("no branch", r, one("no_branches", Some("check"))));

        let mut r = good();
        if let NodeKind::Condition { branches, .. } = &mut r.nodes[2].kind {
            branches[0].keyword = "".into();
        }
        cases.push(("empty keyword", r, one("empty_keyword", Some("check"))));

        let mut r = good();
        r.nodes[2].next = Some("end".into());
        cases.push((
            "condition with next",
            r,
            one("condition_has_next", Some("check")),
        ));

        let mut r = good();
        r.nodes.push(agent("plan", "end"));
        cases.push(("duplicate id", r, one("duplicate_id", Some("plan"))));

        let mut r = good();
        r.nodes[3].kind = NodeKind::Recite {
            material: " ".into(),
        };
        cases.push((
            "recite without material",
            r,
            one("incomplete", Some("recite")),
        ));

        let mut r = good();
        r.nodes.retain(|n| n.id != "end");
        r.nodes.push(node(
            "done",
            NodeKind::NotifyParent {
                message: "done".into(),
            },
            Some("recite"),
        ));
        // No end: what led to it now leads to a note to the parent.
        r.nodes[3].next = Some("done".into());
        if let NodeKind::Condition { default, .. } = &mut r.nodes[2].kind {
            *default = Some("done".into());
        }
        cases.push(("no end", r, one("no_end", None)));

        let mut r = good();
        r.nodes.push(agent("island", "end"));
        cases.push(("unreachable", r, one("unreachable", Some("island"))));

        // plan → check → (背诵) recite → plan: a cycle through the condition.
        let mut r = good();
        r.nodes[3].next = Some("plan".into());
        cases.push(("cycle", r, one("cycle", Some("plan"))));

        for (what, r, expected) in cases {
            assert_eq!(codes(&r), expected, "{what}");
            for (code, _) in &expected {
                assert!(PROBLEM_CODES.contains(&code.as_str()), "{code} is listed");
            }
        }
    }

    /// The list of codes names each code this module gives, and no other
    /// (read from the rules' source: each `say("…"` and `code: "…"`).
    #[test]
    fn the_code_list_matches_the_problems_given() {
        let source = include_str!("validate.rs");
        let (rules, _) = source.split_once("#[cfg(test)]").unwrap();
        let first_string = |after: &str| -> String {
            let rest = after.trim_start().strip_prefix('"').unwrap();
            rest[..rest.find('"').unwrap()].to_string()
        };
        let mut given = std::collections::BTreeSet::new();
        for part in rules.split("say(").skip(1) {
            given.insert(format!("routine.{}", first_string(part)));
        }
        for part in rules.split("code: ").skip(1) {
            if part.starts_with('"') {
                given.insert(first_string(part));
            }
        }
        let listed: std::collections::BTreeSet<String> =
            PROBLEM_CODES.iter().map(|c| c.to_string()).collect();
        assert_eq!(given, listed);
    }

    /// The examples in the repository's `routines/` folder pass, and their
    /// agent nodes name members of the team in `agents/`.
    #[test]
    fn the_example_routines_are_valid() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for name in ["evening-review", "weekend-reading"] {
            let text = std::fs::read_to_string(root.join(format!("routines/{name}.json"))).unwrap();
            let routine: Routine = serde_json::from_str(&text).unwrap();
            assert_eq!(routine.name, name);
            assert_eq!(validate(&routine), vec![], "{name}");
            for n in &routine.nodes {
                if let NodeKind::Agent { agent, .. } = &n.kind {
                    assert!(
                        root.join("agents").join(agent).join("AGENTS.md").is_file(),
                        "{name}: no agent {agent} in agents/"
                    );
                }
            }
        }
    }

    #[test]
    fn a_self_loop_is_a_cycle() {
        let r = routine(vec![
            node("start", NodeKind::Start, Some("a")),
            node(
                "a",
                NodeKind::Condition {
                    branches: vec![Branch {
                        keyword: "again".into(),
                        to: "a".into(),
                    }],
                    default: Some("end".into()),
                },
                None,
            ),
            node("end", NodeKind::End, None),
        ]);
        assert_eq!(codes(&r), one("cycle", Some("a")));
    }

    #[test]
    fn problems_are_listed_together() {
        let mut r = good();
        r.name = "".into();
        r.nodes[1].next = None;
        r.nodes[3].next = Some("gone".into());
        assert_eq!(
            codes(&r),
            vec![
                ("routine.no_name".into(), None),
                ("routine.missing_next".into(), Some("plan".into())),
                ("routine.unknown_node".into(), Some("recite".into())),
            ]
        );
    }
}
