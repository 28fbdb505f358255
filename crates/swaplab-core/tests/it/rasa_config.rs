//! `integrations.yml`, `memory.yml` and `responses.yml`: one case per Rasa rule, each with
//! its exact message and where it points, plus the tutorial example's own files.

use swaplab_core::diagnostic::{Diagnostic, Phase, Severity};
use swaplab_core::rasa::integrations::{AuthKind, ParsedUrl, read_integrations};
use swaplab_core::rasa::memory::{
    MemoryRead, MemorySlot, ProjectMemory, SkillMemory, Visibility, lookup_get, lookup_set,
    read_project_memory, read_skill_memory, readable_keys,
};
use swaplab_core::rasa::responses::{Placeholder, placeholders, read_responses, render};
use swaplab_core::yaml::YamlValue;

use crate::support::{examples_dir, read};

/// One expected finding: phase, code, exact message, 1-based line and column.
struct Expect<'a> {
    phase: Phase,
    code: &'a str,
    message: &'a str,
    line: u32,
    column: u32,
}

fn check(label: &str, found: &[Diagnostic], expected: &Expect<'_>) {
    let [diagnostic] = found else { panic!("{label}: expected one finding, got {found:#?}") };
    assert_eq!(diagnostic.message, expected.message, "{label}: message");
    assert_eq!(diagnostic.code, expected.code, "{label}: code");
    assert_eq!(diagnostic.phase, expected.phase, "{label}: phase");
    assert_eq!(
        (diagnostic.span.start.line, diagnostic.span.start.column),
        (expected.line, expected.column),
        "{label}: position"
    );
}

fn example(path: &str) -> String {
    read(&examples_dir().join("tutorial").join(path))
}

// ---------------------------------------------------------------- integrations.yml

const INVALID: &str = "swaplab.mcp_servers.invalid_server";

#[test]
fn mcp_servers_errors_carry_rasas_messages_and_point_at_the_culprit() {
    let p = "Invalid configuration for MCP server at index";
    let cases: &[(&str, &str, Expect<'_>)] = &[
        (
            "not a list",
            "mcp_servers:\n  name: crm\n",
            Expect {
                phase: Phase::Load,
                code: "swaplab.mcp_servers.not_a_list",
                message: "'mcp_servers' in 'integrations.yml' must be a list of server configurations.",
                line: 2,
                column: 3,
            },
        ),
        (
            "entry is a string",
            "mcp_servers:\n  - hubspot_crm\n",
            Expect {
                phase: Phase::Load,
                code: "swaplab.mcp_servers.entry_not_mapping",
                message: "MCP server at index 0 in 'integrations.yml' must be a mapping, but got 'str'.",
                line: 2,
                column: 5,
            },
        ),
        (
            "entry is an int",
            "mcp_servers:\n  - {name: a, url: 'http://a'}\n  - 7\n",
            Expect {
                phase: Phase::Load,
                code: "swaplab.mcp_servers.entry_not_mapping",
                message: "MCP server at index 1 in 'integrations.yml' must be a mapping, but got 'int'.",
                line: 3,
                column: 5,
            },
        ),
        (
            "entry is a list",
            "mcp_servers:\n  - [a, b]\n",
            Expect {
                phase: Phase::Load,
                code: "swaplab.mcp_servers.entry_not_mapping",
                message: "MCP server at index 0 in 'integrations.yml' must be a mapping, but got 'list'.",
                line: 2,
                column: 5,
            },
        ),
        (
            "name pattern",
            "mcp_servers:\n  - name: my crm\n    url: http://127.0.0.1:8931/mcp\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': String should match pattern '^[A-Za-z0-9][A-Za-z0-9_.-]*$'"
                ),
                line: 2,
                column: 11,
            },
        ),
        (
            "ftp url",
            "mcp_servers:\n  - name: crm\n    url: ftp://files.example.com/mcp\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': MCP server URL must use http or https, got 'ftp'."
                ),
                line: 3,
                column: 10,
            },
        ),
        (
            "url without scheme",
            "mcp_servers:\n  - name: crm\n    url: /mcp\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': MCP server URL must use http or https, got 'no scheme'."
                ),
                line: 3,
                column: 10,
            },
        ),
        (
            "url from an environment variable is not expanded",
            "mcp_servers:\n  - name: crm\n    url: ${CRM_MCP_URL}\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': MCP server URL must use http or https, got 'no scheme'."
                ),
                line: 3,
                column: 10,
            },
        ),
        (
            "stdio server",
            "mcp_servers:\n  - name: crm\n    command: python\n    args: [server.py]\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!("{p} 0 in 'integrations.yml': url Field required"),
                line: 2,
                column: 5,
            },
        ),
        (
            "type stdio",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    type: stdio\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!("{p} 0 in 'integrations.yml': Invalid MCP server type: stdio"),
                line: 4,
                column: 11,
            },
        ),
        (
            "tool_timeout zero",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    tool_timeout: 0\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!("{p} 0 in 'integrations.yml': Input should be greater than 0"),
                line: 4,
                column: 19,
            },
        ),
        (
            "tool_timeout not a number",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    tool_timeout: soon\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': Input should be a valid number, unable to parse string as a number"
                ),
                line: 4,
                column: 19,
            },
        ),
        (
            "meta_map.from_slots",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    meta_map:\n      from_slots:\n        contact: contact_id\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': meta_map.from_slots is not supported. Use meta_map.static for per-call MCP _meta."
                ),
                line: 5,
                column: 7,
            },
        ),
        (
            "two auth methods",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    token: ${CRM_TOKEN}\n    api_key: ${CRM_KEY}\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': Configure at most one MCP transport auth method; found ['api_key', 'token']."
                ),
                line: 5,
                column: 5,
            },
        ),
        (
            "plain token",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    token: sk-live-123\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': You defined the 'token' in MCP server as a string. The 'token' must be set as an environment variable. Please update your config."
                ),
                line: 4,
                column: 12,
            },
        ),
        (
            "plain api_key",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    api_key: abc\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': You defined the 'api_key' in MCP server as a string. The 'api_key' must be set as an environment variable. Please update your config."
                ),
                line: 4,
                column: 14,
            },
        ),
        (
            "rejected auth key",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    auth:\n      type: bearer\n",
            Expect {
                phase: Phase::Load,
                code: INVALID,
                message: &format!(
                    "{p} 0 in 'integrations.yml': Unsupported MCP server field(s): ['auth']. Any additional key is currently not supported."
                ),
                line: 4,
                column: 5,
            },
        ),
        (
            "duplicate name",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n  - name: crm\n    url: http://b/mcp\n",
            Expect {
                phase: Phase::Load,
                code: "swaplab.mcp_servers.duplicate_name",
                message: "Duplicate MCP server name 'crm' in 'integrations.yml'; names must be unique.",
                line: 4,
                column: 11,
            },
        ),
        (
            "headers without an auth key",
            "mcp_servers:\n  - name: crm\n    url: http://a/mcp\n    headers:\n      Authorization: Bearer ${T}\n",
            Expect {
                phase: Phase::Load,
                code: "swaplab.mcp.auth_initialization",
                message: "AgentAuthInitializationException: Invalid authentication type. Supported types: api_key, oauth2, bearer_token, custom",
                line: 4,
                column: 5,
            },
        ),
        (
            "llm section",
            "llm:\n  provider: openai\n",
            Expect {
                phase: Phase::Train,
                code: "swaplab.integrations.llm_section",
                message: "'integrations.yml' must not contain an 'llm:' section. Set 'orchestrator.model_group' in 'agent.yml' instead.",
                line: 1,
                column: 1,
            },
        ),
        (
            "api_key_env in a model group",
            "model_groups:\n  - id: orchestrator\n    models:\n      - provider: openai\n        api_key_env: OPENAI_API_KEY\n",
            Expect {
                phase: Phase::Train,
                code: "swaplab.integrations.api_key_env",
                message: "Model group 'orchestrator' uses 'api_key_env', which is no longer supported. Replace it with 'api_key: ${ENV_VAR_NAME}'.",
                line: 5,
                column: 9,
            },
        ),
    ];
    for (label, text, expected) in cases {
        let read = read_integrations("integrations.yml", Some(text));
        check(label, &read.diagnostics, expected);
        if expected.phase == Phase::Load && expected.code != "swaplab.mcp.auth_initialization" {
            assert!(!read.ok, "{label}: the parse fails");
        }
    }
}

#[test]
fn rasa_stops_at_the_first_bad_entry_and_keeps_the_ones_before() {
    let text = "mcp_servers:\n  - name: a\n    url: http://a/mcp\n  - name: b\n    url: ftp://b\n  \
                - name: c c\n    url: http://c/mcp\n";
    let read = read_integrations("integrations.yml", Some(text));
    assert!(!read.ok);
    assert_eq!(read.diagnostics.len(), 1, "{:#?}", read.diagnostics);
    assert!(read.diagnostics[0].message.contains("at index 1"));
    let names: Vec<&str> = read.servers().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a"]);
    assert!(read.declared());
}

#[test]
fn headers_beside_a_token_are_ignored_with_a_warning() {
    let text = "mcp_servers:\n  - name: crm\n    url: https://crm.example.com/mcp\n    \
                token: ${CRM_TOKEN}\n    headers:\n      X-Team: support\n";
    let read = read_integrations("integrations.yml", Some(text));
    assert!(read.ok);
    let [warning] = read.diagnostics.as_slice() else { panic!("{:#?}", read.diagnostics) };
    assert_eq!(warning.severity, Severity::Warning);
    assert_eq!(warning.code, "swaplab.mcp.headers_ignored");
    assert_eq!((warning.span.start.line, warning.span.start.column), (5, 5));
    let server = read.server("crm").expect("crm");
    assert!(server.headers_present);
    let auth = server.auth.as_ref().expect("auth");
    assert_eq!(auth.kind, AuthKind::Token);
    assert_eq!(auth.env_var.as_deref(), Some("CRM_TOKEN"));
    assert_eq!(server.additional_params, ["token", "headers"]);
    assert_eq!(server.server_type, "https");
    assert!(!server.is_loopback_http());
}

#[test]
fn a_valid_server_keeps_every_attribute() {
    let text = "mcp_servers:\n  - name: crm.v2\n    url: HTTP://LocalHost:9000/mcp?x=1\n    \
                type: https\n    tool_timeout: \"15\"\n    meta_map:\n      static:\n        \
                tenant: acme\n    oauth:\n      client_id: abc\n      client_secret: ${SECRET}\n";
    let read = read_integrations("integrations.yml", Some(text));
    assert!(read.ok && read.diagnostics.is_empty(), "{:#?}", read.diagnostics);
    let server = read.server("crm.v2").expect("server");
    assert_eq!(server.tool_timeout, Some(15.0));
    assert_eq!(server.server_type, "https", "type is not cross-checked with the URL");
    assert!(server.type_explicit);
    assert_eq!(server.meta_map_static, [("tenant".to_owned(), "acme".to_owned())]);
    let auth = server.auth.as_ref().expect("auth");
    assert_eq!((auth.kind, auth.env_var.as_deref()), (AuthKind::OAuth, Some("SECRET")));
    assert_eq!((server.name_span.start.line, server.url_span.start.line), (2, 3));
    assert!(server.is_loopback_http(), "scheme and host are case-insensitive");
    let url = server.parsed_url();
    assert_eq!((url.host.as_str(), url.port, url.path.as_str()), ("localhost", Some(9000), "/mcp"));
}

#[test]
fn urls_split_as_urlsplit_does() {
    /// url, scheme, host, port, path, loopback http.
    type Case<'a> = (&'a str, &'a str, &'a str, Option<u16>, &'a str, bool);
    let cases: &[Case<'_>] = &[
        ("http://127.0.0.1:8931/mcp", "http", "127.0.0.1", Some(8931), "/mcp", true),
        ("http://[::1]:8931/mcp", "http", "::1", Some(8931), "/mcp", true),
        ("https://127.0.0.1/mcp", "https", "127.0.0.1", None, "/mcp", false),
        ("http://user:pw@localhost/", "http", "localhost", None, "/", true),
        ("http://10.0.0.2:80/mcp", "http", "10.0.0.2", Some(80), "/mcp", false),
        ("localhost:8931/mcp", "localhost", "", None, "8931/mcp", false),
        ("${URL}", "", "", None, "${URL}", false),
    ];
    for &(url, scheme, host, port, path, loopback) in cases {
        let parsed = ParsedUrl::parse(url);
        assert_eq!(
            (parsed.scheme.as_str(), parsed.host.as_str(), parsed.port, parsed.path.as_str()),
            (scheme, host, port, path),
            "{url}"
        );
        assert_eq!(parsed.is_loopback_http(), loopback, "{url}");
    }
}

#[test]
fn nothing_declared_is_none() {
    let missing = read_integrations("integrations.yml", None);
    assert!(!missing.exists && missing.mcp_servers.is_none() && missing.ok);
    for text in ["", "- a\n", "model_groups: []\n", "mcp_servers:\n"] {
        let read = read_integrations("integrations.yml", Some(text));
        assert!(read.exists && read.mcp_servers.is_none() && read.ok, "{text:?}");
        assert!(read.diagnostics.is_empty(), "{text:?}");
    }
    let empty_list = read_integrations("integrations.yml", Some("mcp_servers: []\n"));
    assert_eq!(empty_list.mcp_servers.as_deref().map(<[_]>::len), Some(0));
}

#[test]
fn a_yaml_syntax_error_is_a_read_error() {
    let read = read_integrations("integrations.yml", Some("mcp_servers: [a\n"));
    assert!(!read.ok);
    assert_eq!(read.diagnostics[0].phase, Phase::Read);
    assert_eq!(read.diagnostics[0].code, "swaplab.yaml.syntax");
}

#[test]
fn the_tutorial_integrations_before_and_after() {
    let before = read_integrations("integrations.yml", Some(&example("before/integrations.yml")));
    assert!(before.diagnostics.is_empty(), "{:#?}", before.diagnostics);
    assert!(before.mcp_servers.is_none() && before.config_ok);
    assert_eq!(before.model_group_ids, ["support-llm"]);

    let after = read_integrations("integrations.yml", Some(&example("after/integrations.yml")));
    assert!(after.diagnostics.is_empty(), "{:#?}", after.diagnostics);
    assert!(after.ok && after.config_ok);
    let server = after.server("hubspot_crm").expect("hubspot_crm");
    assert_eq!(server.url, "http://127.0.0.1:8931/mcp");
    assert_eq!(server.server_type, "http");
    assert!(!server.type_explicit);
    assert!(server.auth.is_none() && server.additional_params.is_empty());
    assert!(server.is_loopback_http());
    assert_eq!(server.name_span.start.line, 11);
    assert!(after.server("hubspot").is_none());
}

// ---------------------------------------------------------------- memory.yml

#[test]
fn memory_train_findings_have_their_codes_and_point_at_the_key() {
    let project = read_project_memory(
        "memory.yml",
        Some("contact_email:\n  type: text\n  llm_settable: yes\n  description: The email.\n"),
    );
    assert!(project.ok && project.diagnostics.is_empty(), "{:#?}", project.diagnostics);
    assert!(project.field("contact_email").expect("field").llm_settable, "unquoted yes is True");
    let findings = project.train_findings();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    check(
        "project llm_settable",
        &findings[..1],
        &Expect {
            phase: Phase::Train,
            code: "mantle.validation.memory.project_llm_settable",
            message: "Project memory field 'contact_email' declares llm_settable: true. Project fields cannot be written by the LLM.",
            line: 3,
            column: 3,
        },
    );
    assert_eq!(findings[1].code, "mantle.validation.memory.description_not_exposed");
    assert_eq!((findings[1].span.start.line, findings[1].span.start.column), (4, 3));

    let skill = read_skill_memory(
        "skills/s/memory.yml",
        "s",
        "schema:\n  public:\n    a:\n      llm_settable: true\n    b:\n      description: Never shown.\n    \
         c:\n      seed: true\n    d:\n      type: text\n    e:\n      description: Collected.\n",
    );
    assert!(skill.ok, "{:#?}", skill.diagnostics);
    let findings = skill.train_findings(&["d", "e"]);
    let got: Vec<(&str, u32, u32)> = findings
        .iter()
        .map(|d| (d.code.as_str(), d.span.start.line, d.span.start.column))
        .collect();
    assert_eq!(
        got,
        [
            ("mantle.validation.memory.description_required", 3, 5),
            ("mantle.validation.memory.description_not_exposed", 6, 7),
            ("mantle.validation.memory.skill_seed", 8, 7),
            ("mantle.validation.memory.description_required", 9, 5),
        ]
    );
    assert!(findings.iter().all(|d| d.phase == Phase::Train && d.is_error()));
    assert_eq!(skill.settable_names(&["d", "e"]), ["a", "d", "e"]);
}

#[test]
fn memory_attributes_are_checked_like_pydantic_lax_mode() {
    let ok = |text: &str| {
        let skill = read_skill_memory("m.yml", "s", &format!("schema:\n  public:\n    f:\n{text}"));
        assert!(skill.ok, "{text}: {:#?}", skill.diagnostics);
        skill.public[0].clone()
    };
    assert!(ok("      pii: 'yes'\n").pii, "quoted 'yes' is pydantic's lax True");
    assert!(!ok("      pii: 'Off'\n").pii);
    assert!(ok("      pii: 1\n").pii);
    assert!(ok("      llm_settable: 'T'\n").llm_settable);
    assert_eq!(ok("      description: null\n").description, None);
    assert_eq!(ok("      initial_value: 3\n").initial_value, Some(YamlValue::Int(3)));
    assert_eq!(ok("      privacy_rules: [a]\n").privacy_rules, ["a"]);

    let bad: &[(&str, &str, u32, u32)] = &[
        (
            "      pii: maybe\n",
            "schema.public.f.pii: Input should be a valid boolean, unable to interpret input",
            4,
            12,
        ),
        (
            "      llm_settable: 2\n",
            "schema.public.f.llm_settable: Input should be a valid boolean, unable to interpret input",
            4,
            21,
        ),
        ("      seed: [true]\n", "schema.public.f.seed: Input should be a valid boolean", 4, 13),
        ("      type: 5\n", "schema.public.f.type: Input should be a valid string", 4, 13),
        (
            "      description: yes\n",
            "schema.public.f.description: Input should be a valid string",
            4,
            20,
        ),
        (
            "      enum_values: a\n",
            "schema.public.f.enum_values: Input should be a valid list",
            4,
            20,
        ),
        (
            "      privacy_rules: [a, 3]\n",
            "schema.public.f.privacy_rules.1: Input should be a valid string",
            4,
            26,
        ),
    ];
    for &(attrs, message, line, column) in bad {
        let skill =
            read_skill_memory("m.yml", "s", &format!("schema:\n  public:\n    f:\n{attrs}"));
        assert!(!skill.ok, "{attrs}");
        check(
            attrs,
            &skill.diagnostics,
            &Expect {
                phase: Phase::Compile,
                code: "swaplab.memory.invalid",
                message,
                line,
                column,
            },
        );
    }

    let field = read_skill_memory("m.yml", "s", "schema:\n  public:\n    f: text\n");
    check(
        "field not a mapping",
        &field.diagnostics,
        &Expect {
            phase: Phase::Compile,
            code: "swaplab.memory.invalid",
            message: "schema.public.f: Input should be a valid dictionary",
            line: 3,
            column: 8,
        },
    );

    let project = read_project_memory("memory.yml", Some("f:\n  pii: maybe\n"));
    check(
        "project attribute",
        &project.diagnostics,
        &Expect {
            phase: Phase::Load,
            code: "swaplab.memory.invalid",
            message: "f.pii: Input should be a valid boolean, unable to interpret input",
            line: 2,
            column: 8,
        },
    );
}

#[test]
fn memory_files_follow_rasas_shapes() {
    let project = read_project_memory(
        "memory.yml",
        Some("contact_id:\nsegment: text\ncompany:\n  type: text\n  colour: blue\n"),
    );
    assert!(project.ok && project.diagnostics.is_empty());
    let id = project.field("contact_id").expect("contact_id");
    assert_eq!(
        (id.type_name.as_str(), id.span.start.line),
        ("any", 1),
        "a null value is a default field"
    );
    assert_eq!(project.field("segment").expect("segment").type_name, "any");
    assert_eq!(project.field("company").expect("company").type_name, "text");

    assert!(read_project_memory("memory.yml", None).fields.is_empty());
    assert!(read_project_memory("memory.yml", Some("")).ok);

    let skill = read_skill_memory(
        "skills/s/memory.yml",
        "s",
        "version: 2\nschema:\n  extra: 1\n  public:\n    x:\n      type: text\n    y:\n      type: int\n  \
         private:\n    x:\n      type: bool\n",
    );
    assert!(skill.ok && skill.diagnostics.is_empty(), "{:#?}", skill.diagnostics);
    let all: Vec<(&str, &str, Visibility)> = skill
        .all_fields()
        .into_iter()
        .map(|(f, v)| (f.name.as_str(), f.type_name.as_str(), v))
        .collect();
    assert_eq!(all, [("x", "bool", Visibility::Private), ("y", "int", Visibility::Public)]);
    assert_eq!(skill.field("x").expect("x").type_name, "bool", "private wins");
    assert!(SkillMemory::empty("skills/t/memory.yml", "t").ok);
}

fn tutorial_memory() -> (ProjectMemory, Vec<SkillMemory>) {
    let project = read_project_memory("memory.yml", Some(&example("before/memory.yml")));
    let log = read_skill_memory(
        "skills/log_interaction/memory.yml",
        "log_interaction",
        &example("before/skills/log_interaction/memory.yml"),
    );
    let tickets = read_skill_memory(
        "skills/check_tickets/memory.yml",
        "check_tickets",
        "schema:\n  public:\n    open_ticket_count:\n      type: int\n  private:\n    cursor:\n      type: text\n",
    );
    (project, vec![log, tickets])
}

#[test]
fn the_tutorial_memory_files() {
    for side in ["before", "after"] {
        let project =
            read_project_memory("memory.yml", Some(&example(&format!("{side}/memory.yml"))));
        let names: Vec<&str> = project.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["contact_id", "contact_name", "company"], "{side}");
        assert!(project.fields.iter().all(|f| f.type_name == "text" && !f.llm_settable));
        assert!(project.diagnostics.is_empty() && project.train_findings().is_empty(), "{side}");

        let log = read_skill_memory(
            "skills/log_interaction/memory.yml",
            "log_interaction",
            &example(&format!("{side}/skills/log_interaction/memory.yml")),
        );
        assert!(log.ok && log.public.is_empty(), "{side}");
        let [note] = log.private.as_slice() else { panic!("{side}: {:#?}", log.private) };
        assert_eq!(note.name, "note_summary");
        assert_eq!(note.type_name, "text");
        assert!(note.llm_settable);
        assert_eq!(
            note.description.as_deref(),
            Some("One or two factual sentences about the call, to be saved as a CRM note.")
        );
        assert!(log.train_findings(&[]).is_empty(), "{side}");
    }
}

#[test]
fn visibility_follows_the_active_skill() {
    let (project, skills) = tutorial_memory();
    let project_keys = ["project.contact_id", "project.contact_name", "project.company"];
    let mut expected: Vec<&str> = project_keys.to_vec();
    expected.extend(["log_interaction.note_summary", "check_tickets.open_ticket_count"]);
    assert_eq!(readable_keys(Some("log_interaction"), &project, &skills), expected);
    let mut expected: Vec<&str> = project_keys.to_vec();
    expected.extend(["check_tickets.open_ticket_count", "check_tickets.cursor"]);
    assert_eq!(readable_keys(Some("check_tickets"), &project, &skills), expected);
    let mut expected: Vec<&str> = project_keys.to_vec();
    expected.push("check_tickets.open_ticket_count");
    assert_eq!(readable_keys(None, &project, &skills), expected);
}

#[test]
fn tool_context_memory_paths_resolve_as_rasa_resolves_them() {
    let (project, skills) = tutorial_memory();
    let active = Some("log_interaction");
    let skill =
        |entry: &str| MemorySlot::Skill { skill: "log_interaction".into(), entry: entry.into() };
    let project_slot = |entry: &str| MemorySlot::Project { entry: entry.into() };
    let get = |path: &str| lookup_get(path, active, &project, &skills);
    assert_eq!(get("note_summary"), MemoryRead::Field { slot: skill("note_summary") });
    assert_eq!(get("contact_id"), MemoryRead::Field { slot: project_slot("contact_id") });
    assert_eq!(get("project.contact_id"), MemoryRead::Field { slot: project_slot("contact_id") });
    assert_eq!(
        get("log_interaction.note_summary"),
        MemoryRead::Field { slot: skill("note_summary") }
    );
    assert!(matches!(get("check_tickets.open_ticket_count"), MemoryRead::Field { .. }));
    assert_eq!(get("check_tickets.cursor"), MemoryRead::Unreadable, "private to check_tickets");
    assert_eq!(get("project.nope"), MemoryRead::Unreadable);
    assert_eq!(get("system.x"), MemoryRead::Unreadable);
    assert_eq!(get("whatever"), MemoryRead::Verbatim { key: "whatever".into() });

    let set = |path: &str| lookup_set(path, active, &project, &skills);
    assert_eq!(set("note_summary"), Ok(skill("note_summary")));
    assert_eq!(set("contact_id"), Ok(project_slot("contact_id")));
    assert_eq!(set("project.company"), Ok(project_slot("company")));
    assert_eq!(set("log_interaction.note_summary"), Ok(skill("note_summary")));
    assert_eq!(
        set("open_ticket_count"),
        Err("Write to undeclared memory entry 'open_ticket_count' rejected. Declare it under the \
             owning skill's or the project's memory.yml before a tool or step writes it."
            .to_owned())
    );
    assert_eq!(
        set("check_tickets.open_ticket_count"),
        Err("Cross-skill write to 'check_tickets.open_ticket_count' rejected.".to_owned())
    );
    assert_eq!(
        set("system.x"),
        Err("Write to reserved system memory entry 'system.x' rejected.".to_owned())
    );
    assert!(
        set("project.nope")
            .is_err_and(|e| e.starts_with("Write to undeclared memory entry 'project.nope'"))
    );
}

// ---------------------------------------------------------------- responses.yml

#[test]
fn the_tutorial_responses() {
    let read = read_responses(
        "skills/log_interaction/responses.yml",
        &example("before/skills/log_interaction/responses.yml"),
    );
    assert!(read.diagnostics.is_empty(), "{:#?}", read.diagnostics);
    let names: Vec<&str> = read.responses.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["utter_confirm_note", "utter_note_cancelled", "utter_note_saved"]);
    let confirm = read.get("utter_confirm_note").expect("confirm");
    assert_eq!(confirm.first_text(), Some("Shall I add this to your record? \"{note_summary}\""));
    assert_eq!(confirm.variants[0].placeholders, ["note_summary"]);
    assert_eq!((confirm.span.start.line, confirm.variants[0].span.start.line), (2, 3));
    assert!(read.get("utter_note_saved").expect("saved").variants[0].placeholders.is_empty());
}

#[test]
fn response_shapes_are_reported() {
    let shape = "swaplab.responses.invalid_shape";
    let cases: &[(&str, Expect<'_>)] = &[
        (
            "- a\n",
            Expect {
                phase: Phase::Train,
                code: shape,
                message: "'responses.yml' must be a mapping with a 'responses:' key, but got 'list'.",
                line: 1,
                column: 1,
            },
        ),
        (
            "responses: [a]\n",
            Expect {
                phase: Phase::Train,
                code: shape,
                message: "'responses' must map response names to lists of variants, but got 'list'.",
                line: 1,
                column: 12,
            },
        ),
        (
            "responses:\n  utter_a: Hello\n",
            Expect {
                phase: Phase::Train,
                code: shape,
                message: "Response 'utter_a' must be a list of variants (each with 'text:'), but got 'str'.",
                line: 2,
                column: 12,
            },
        ),
        (
            "responses:\n  utter_a:\n    - Hello\n",
            Expect {
                phase: Phase::Train,
                code: shape,
                message: "Each variant of response 'utter_a' must be a mapping with 'text:', but got 'str'.",
                line: 3,
                column: 7,
            },
        ),
        (
            "responses:\n  utter_a:\n    - text: ''\n",
            Expect {
                phase: Phase::Train,
                code: "mantle.validation.response.empty_body",
                message: "Response 'utter_a' has an empty text; it would send nothing to the user.",
                line: 3,
                column: 13,
            },
        ),
        (
            "responses:\n  utter_a:\n    - metadata: {rephrase: true}\n",
            Expect {
                phase: Phase::Train,
                code: "mantle.validation.response.empty_body",
                message: "Response 'utter_a' has an empty text; it would send nothing to the user.",
                line: 3,
                column: 7,
            },
        ),
    ];
    for (text, expected) in cases {
        let read = read_responses("responses.yml", text);
        check(text, &read.diagnostics, expected);
    }
    let empty = read_responses("responses.yml", "responses:\n  utter_a:\n    - text: ''\n");
    assert_eq!(empty.diagnostics[0].severity, Severity::Warning);
    let buttons = read_responses(
        "responses.yml",
        "responses:\n  utter_pick:\n    - buttons:\n        - title: Yes\n          payload: /affirm\n",
    );
    assert!(buttons.diagnostics.is_empty(), "{:#?}", buttons.diagnostics);
    let variant = &buttons.get("utter_pick").expect("pick").variants[0];
    assert_eq!(variant.buttons[0].payload.as_deref(), Some("/affirm"));
}

#[test]
fn placeholders_are_found_and_rendered() {
    let text = "Cancel {session.project.trip}, booking {ref}?\n{ref} {a.b} {} {x\ny} {{z}}";
    assert_eq!(placeholders(text), ["session.project.trip", "ref", "a.b", "z"]);
    let rendered = render(text, |placeholder| match placeholder {
        Placeholder::Session { namespace: "project", entry: "trip" } => Some("Lisbon".to_owned()),
        Placeholder::Entry { entry: "ref" } => Some("HT1".to_owned()),
        _ => None,
    });
    assert_eq!(rendered, "Cancel Lisbon, booking HT1?\nHT1 {a.b} {} {x\ny} {{z}}");
    assert_eq!(Placeholder::parse("session.x"), Placeholder::Other { raw: "session.x" });
}

// ---------------------------------------------------------------- robustness

#[test]
fn every_prefix_of_every_config_file_reads_without_panicking() {
    use crate::support::{corpus_dir, walk};
    let mut files: Vec<_> = walk(&corpus_dir());
    files.extend(walk(&examples_dir()));
    let mut seen = 0;
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if !matches!(name.as_str(), "memory.yml" | "integrations.yml" | "responses.yml") {
            continue;
        }
        seen += 1;
        let text = read(&path);
        let extra =
            ["", "\n  - [", "\n: {", "\n*a", "\n\t", "\nmcp_servers:\n  - name: x\n    url: 1"];
        let cuts = text.char_indices().map(|(at, _)| at).chain([text.len()]);
        for (n, cut) in cuts.enumerate() {
            // Every prefix as is; every 16th also with a YAML-significant tail.
            let tails = if n % 16 == 0 { &extra[..] } else { &extra[..1] };
            for tail in tails {
                let input = format!("{}{tail}", &text[..cut]);
                match name.as_str() {
                    "memory.yml" => {
                        let project = read_project_memory("memory.yml", Some(&input));
                        let _ = project.train_findings();
                        let skill = read_skill_memory("skills/s/memory.yml", "s", &input);
                        let _ = skill.train_findings(&["x"]);
                        let _ = readable_keys(Some("s"), &project, std::slice::from_ref(&skill));
                        let _ = lookup_set("s.x", Some("s"), &project, &[skill]);
                    }
                    "integrations.yml" => {
                        let read = read_integrations("integrations.yml", Some(&input));
                        let _ = read.servers().iter().filter(|s| s.is_loopback_http()).count();
                    }
                    _ => {
                        let read = read_responses("responses.yml", &input);
                        for response in &read.responses {
                            for text in response.variants.iter().filter_map(|v| v.text.as_deref()) {
                                let _ = render(text, |_| Some("v".to_owned()));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(seen >= 40, "only {seen} config files found");
}
