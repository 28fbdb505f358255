//! `integrations.yml` read the way Rasa 3.21 reads it (reference §4): the `mcp_servers:`
//! list as `load_integration_mcp_servers` / `MCPServerSpec` parse it at model load, the
//! auth detection that runs when the runtime connects, and the train-time rules on the
//! rest of the file (`llm:`, `api_key_env`). No `${VAR}` is ever expanded here.
//!
//! Rasa raises on the first bad entry and stops, so at most one `mcp_servers` parse error
//! is reported; the servers before it are still listed (for display) with
//! [`Integrations::ok`] false. Train validation refuses the same entry again with its own
//! wording (`MCP server at index {i} in 'integrations.yml' is invalid: {problems}.`); that
//! second report is not repeated here.
//!
//! Codes are ours (`swaplab.…`): Rasa raises these as plain exceptions without a code.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Phase, Span};
use crate::rasa::memory::{MSG_DICT_TYPE, MSG_FINITE, MSG_MISSING, lax_float, lax_str, parse_yaml};
use crate::yaml::{Node, YamlValue, python_str, python_str_repr};

/// Load: `mcp_servers` is not a list.
pub const CODE_MCP_SERVERS_NOT_LIST: &str = "swaplab.mcp_servers.not_a_list";
/// Load: an `mcp_servers` entry is not a mapping.
pub const CODE_MCP_SERVER_NOT_MAPPING: &str = "swaplab.mcp_servers.entry_not_mapping";
/// Load: an entry fails `MCPServerSpec`.
pub const CODE_MCP_SERVER_INVALID: &str = "swaplab.mcp_servers.invalid_server";
/// Load: two entries share a name.
pub const CODE_MCP_SERVER_DUPLICATE: &str = "swaplab.mcp_servers.duplicate_name";
/// Load: `AgentAuthManager.load_auth` finds extra keys but no auth method (`headers:`).
pub const CODE_AUTH_INITIALIZATION: &str = "swaplab.mcp.auth_initialization";
/// Warning: `headers:` next to an auth key is silently ignored.
pub const CODE_HEADERS_IGNORED: &str = "swaplab.mcp.headers_ignored";
/// Train: a top-level `llm:` section (`IntegrationConfig`).
pub const CODE_LLM_SECTION: &str = "swaplab.integrations.llm_section";
/// Train: a model group uses `api_key_env`.
pub const CODE_API_KEY_ENV: &str = "swaplab.integrations.api_key_env";

/// The `name` pattern of `MCPServerSpec`.
pub const NAME_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_.-]*$";

/// Keys `MCPServerSpec` refuses outright.
const REJECTED_KEYS: [&str; 4] = ["auth", "token_env", "pre_call_hook", "protocol_version"];
/// The declared fields; every other key is folded into `additional_params`.
const SPEC_FIELDS: [&str; 5] = ["name", "url", "type", "tool_timeout", "meta_map"];

/// `integrations.yml` as far as Swap Lab needs it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Integrations {
    /// The file's path in the project.
    pub file: String,
    /// Whether the file exists.
    pub exists: bool,
    /// `None` when nothing is declared (no file, not a mapping, no or a null `mcp_servers`);
    /// otherwise the servers parsed before the first error, in file order.
    pub mcp_servers: Option<Vec<McpServer>>,
    /// Whether `load_integration_mcp_servers` returns without raising.
    pub ok: bool,
    /// Whether `IntegrationConfig` accepts the file (false with a top-level `llm:`).
    pub config_ok: bool,
    /// The `id`s under `model_groups:`, in file order.
    pub model_group_ids: Vec<String>,
    /// Every finding, in file order within each phase.
    pub diagnostics: Vec<Diagnostic>,
}

impl Integrations {
    /// Whether `mcp_servers` is declared at all.
    pub fn declared(&self) -> bool {
        self.mcp_servers.is_some()
    }

    /// The parsed servers (empty when none are declared).
    pub fn servers(&self) -> &[McpServer] {
        self.mcp_servers.as_deref().unwrap_or_default()
    }

    /// The server named exactly `name` (the `<server>` of `mcp/<server>:<tool>`).
    pub fn server(&self, name: &str) -> Option<&McpServer> {
        self.servers().iter().find(|server| server.name == name)
    }
}

/// One `mcp_servers` entry that `MCPServerSpec` accepted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McpServer {
    /// Its index in the list.
    pub index: usize,
    /// `name`.
    pub name: String,
    /// `url`, verbatim (never expanded).
    pub url: String,
    /// `type`, or the URL's scheme when absent (`http` or `https`).
    pub server_type: String,
    /// Whether `type` was written.
    pub type_explicit: bool,
    /// `tool_timeout` in seconds, if set.
    pub tool_timeout: Option<f64>,
    /// `meta_map.static`, sent as MCP `_meta` on every call.
    pub meta_map_static: Vec<(String, String)>,
    /// The transport auth method, if one is configured.
    pub auth: Option<Auth>,
    /// The keys folded into `additional_params` (auth keys, `headers`, anything unknown).
    pub additional_params: Vec<String>,
    /// Whether a `headers:` key is present (never a field of its own; see §4.3).
    pub headers_present: bool,
    /// The whole entry.
    pub span: Span,
    /// The `name` value.
    pub name_span: Span,
    /// The `url` value.
    pub url_span: Span,
}

impl McpServer {
    /// The URL split into scheme, host, port and path.
    pub fn parsed_url(&self) -> ParsedUrl {
        ParsedUrl::parse(&self.url)
    }

    /// Whether the URL is plain `http` to this machine (`127.0.0.1`, `localhost`, `::1`).
    pub fn is_loopback_http(&self) -> bool {
        self.parsed_url().is_loopback_http()
    }
}

/// Which transport auth method an entry configures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthKind {
    /// `token: ${X}` → `Authorization: Bearer …`.
    Token,
    /// `api_key: ${X}` → header `header_name` in `header_format`.
    ApiKey,
    /// `oauth: {…, client_secret: ${X}}`.
    OAuth,
    /// `module:`, a custom strategy.
    Module,
}

impl AuthKind {
    /// The key in `integrations.yml`.
    pub fn key(self) -> &'static str {
        match self {
            AuthKind::Token => "token",
            AuthKind::ApiKey => "api_key",
            AuthKind::OAuth => "oauth",
            AuthKind::Module => "module",
        }
    }
}

/// A configured auth method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Auth {
    /// Which one.
    pub kind: AuthKind,
    /// The environment variable of its secret (`${NAME}` → `NAME`), where it has one.
    pub env_var: Option<String>,
    /// The auth key.
    pub span: Span,
}

/// A URL split the way Python's `urllib.parse.urlsplit` splits it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParsedUrl {
    /// Lower-cased scheme; empty when there is none.
    pub scheme: String,
    /// Lower-cased host, without `[]` around an IPv6 address.
    pub host: String,
    /// The port, when one is written and valid.
    pub port: Option<u16>,
    /// The path (no query or fragment).
    pub path: String,
}

impl ParsedUrl {
    /// Splits `url`. Never fails: missing parts are empty.
    pub fn parse(url: &str) -> ParsedUrl {
        let cleaned: String = url
            .trim_start_matches(|c: char| c <= ' ')
            .chars()
            .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
            .collect();
        let (scheme, rest) = split_scheme(&cleaned);
        let (netloc, rest) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find(['/', '?', '#']).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
            None => ("", rest),
        };
        let path = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
        let hostport = netloc.rsplit_once('@').map_or(netloc, |(_, after)| after);
        let (host, port) = if let Some(bracketed) = hostport.strip_prefix('[') {
            match bracketed.split_once(']') {
                Some((host, after)) => (host, after.strip_prefix(':')),
                None => (bracketed, None),
            }
        } else {
            match hostport.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (hostport, None),
            }
        };
        ParsedUrl {
            scheme,
            host: host.to_ascii_lowercase(),
            port: port.and_then(|p| p.parse().ok()),
            path: path.to_owned(),
        }
    }

    /// `http` to `127.0.0.1`, `localhost` or `::1`.
    pub fn is_loopback_http(&self) -> bool {
        self.scheme == "http" && matches!(self.host.as_str(), "127.0.0.1" | "localhost" | "::1")
    }
}

/// `urlsplit`'s scheme rule: letters first, then letters, digits, `+`, `-`, `.` up to `:`.
fn split_scheme(url: &str) -> (String, &str) {
    if let Some(colon) = url.find(':') {
        let candidate = &url[..colon];
        let starts_alpha = candidate.bytes().next().is_some_and(|b| b.is_ascii_alphabetic());
        let valid = candidate.bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
        if starts_alpha && valid {
            return (candidate.to_ascii_lowercase(), &url[colon + 1..]);
        }
    }
    (String::new(), url)
}

/// Reads `integrations.yml`; `text` is `None` when the file is missing.
pub fn read_integrations(file: &str, text: Option<&str>) -> Integrations {
    let mut out = Integrations {
        file: file.to_owned(),
        exists: text.is_some(),
        mcp_servers: None,
        ok: true,
        config_ok: true,
        model_group_ids: Vec::new(),
        diagnostics: Vec::new(),
    };
    let Some(text) = text else { return out };
    let Some(root) = parse_yaml(file, text, &mut out.diagnostics) else {
        out.ok = out.diagnostics.is_empty();
        out.config_ok = out.ok;
        return out;
    };
    if root.as_map().is_none() {
        return out;
    }
    read_mcp_servers(&root, &mut out);
    read_config_rules(&root, &mut out);
    out
}

fn read_mcp_servers(root: &Node, out: &mut Integrations) {
    let file = out.file.clone();
    let Some(list) = root.get("mcp_servers").filter(|node| !node.is_null()) else { return };
    let mut servers: Vec<McpServer> = Vec::new();
    let error = |span: Span, code: &str, message: String| {
        Some(Diagnostic::error(&file, span, Phase::Load, code, message))
    };
    let failure = match list.as_seq() {
        None => error(
            list.span,
            CODE_MCP_SERVERS_NOT_LIST,
            "'mcp_servers' in 'integrations.yml' must be a list of server configurations."
                .to_owned(),
        ),
        Some(entries) => {
            let mut failure = None;
            for (index, entry) in entries.iter().enumerate() {
                if entry.as_map().is_none() {
                    failure = error(
                        entry.span,
                        CODE_MCP_SERVER_NOT_MAPPING,
                        format!(
                            "MCP server at index {index} in 'integrations.yml' must be a mapping, \
                             but got '{}'.",
                            entry.value.type_name()
                        ),
                    );
                    break;
                }
                match parse_server(index, entry) {
                    Err((span, text)) => {
                        failure = error(
                            span,
                            CODE_MCP_SERVER_INVALID,
                            format!(
                                "Invalid configuration for MCP server at index {index} in \
                                 'integrations.yml': {text}"
                            ),
                        );
                        break;
                    }
                    Ok(server) if servers.iter().any(|s| s.name == server.name) => {
                        failure = error(
                            server.name_span,
                            CODE_MCP_SERVER_DUPLICATE,
                            format!(
                                "Duplicate MCP server name '{}' in 'integrations.yml'; names \
                                 must be unique.",
                                server.name
                            ),
                        );
                        break;
                    }
                    Ok(server) => servers.push(server),
                }
            }
            failure
        }
    };
    match failure {
        Some(diagnostic) => {
            out.diagnostics.push(diagnostic);
            out.ok = false;
        }
        // Only a list that parses reaches `MCPRuntime.prepare`, where auth is detected.
        None => {
            for (server, entry) in servers.iter().zip(list.as_seq().unwrap_or_default()) {
                auth_findings(&out.file, server, entry, &mut out.diagnostics);
            }
        }
    }
    out.mcp_servers = Some(servers);
}

/// `MCPServerConnection.from_config` → `AgentAuthManager.load_auth` (§4.3): extra keys but
/// no auth key fail the runtime's start; `headers:` beside an auth key is dropped. Rasa was
/// observed failing on `headers:`; any other extra key takes the same path
/// (`detect_auth_type` finds no auth key), so it is reported the same way.
fn auth_findings(file: &str, server: &McpServer, entry: &Node, out: &mut Vec<Diagnostic>) {
    let Some(first_extra) = server.additional_params.first() else { return };
    let key_span = |key: &str| {
        entry
            .as_map()
            .unwrap_or_default()
            .iter()
            .find(|(k, _)| python_str(&k.value) == key)
            .map_or(server.span, |(k, _)| k.span)
    };
    let headers = server.headers_present.then(|| key_span("headers"));
    match (&server.auth, headers) {
        (None, headers) => out.push(Diagnostic::error(
            file,
            headers.unwrap_or_else(|| key_span(first_extra)),
            Phase::Load,
            CODE_AUTH_INITIALIZATION,
            "AgentAuthInitializationException: Invalid authentication type. Supported types: \
             api_key, oauth2, bearer_token, custom",
        )),
        (Some(auth), Some(span)) => out.push(Diagnostic::warning(
            file,
            span,
            Phase::Load,
            CODE_HEADERS_IGNORED,
            format!(
                "MCP server '{}' has no 'headers' field: with '{}' configured, these headers are \
                 silently ignored and never sent.",
                server.name,
                auth.kind.key()
            ),
        )),
        (Some(_), None) => {}
    }
}

/// One field error: where, and pydantic's or Rasa's text.
type SpecError = (Span, String);

/// `MCPServerSpec.model_validate(entry)`: the before-validator (rejected keys), the fields
/// in declaration order (all their errors, joined by `; `), then `validate_server`.
/// A missing field reads `{field} Field required`, as Rasa printed it for a stdio entry;
/// every other error is the message alone (pydantic's `Value error, ` prefix dropped).
fn parse_server(index: usize, entry: &Node) -> Result<McpServer, SpecError> {
    let pairs = entry.as_map().unwrap_or_default();
    let key_of = |(k, _): &(Node, Node)| python_str(&k.value);

    let mut rejected: Vec<(String, Span)> = pairs
        .iter()
        .map(|pair| (key_of(pair), pair.0.span))
        .filter(|(key, _)| REJECTED_KEYS.contains(&key.as_str()))
        .collect();
    if let Some(&(_, span)) = rejected.first() {
        crate::order::sort(&mut rejected);
        let names: Vec<String> = rejected.iter().map(|(key, _)| python_str_repr(key)).collect();
        return Err((
            span,
            format!(
                "Unsupported MCP server field(s): [{}]. Any additional key is currently not \
                 supported.",
                names.join(", ")
            ),
        ));
    }

    let mut errors: Vec<SpecError> = Vec::new();
    let missing = |field: &str| (entry.span, format!("{field} {MSG_MISSING}"));

    let name = match entry.get("name") {
        None => {
            errors.push(missing("name"));
            None
        }
        Some(node) => match lax_str(&node.value) {
            Err(msg) => {
                errors.push((node.span, msg.to_owned()));
                None
            }
            Ok("") => {
                errors.push((node.span, "String should have at least 1 character".to_owned()));
                None
            }
            Ok(text) if !matches_name_pattern(text) => {
                errors.push((node.span, format!("String should match pattern '{NAME_PATTERN}'")));
                None
            }
            Ok(text) => Some((text.to_owned(), node.span)),
        },
    };

    let url = match entry.get("url") {
        None => {
            errors.push(missing("url"));
            None
        }
        Some(node) => match lax_str(&node.value) {
            Err(msg) => {
                errors.push((node.span, msg.to_owned()));
                None
            }
            Ok(text) => {
                let scheme = ParsedUrl::parse(text).scheme;
                if scheme == "http" || scheme == "https" {
                    Some((text.to_owned(), node.span, scheme))
                } else {
                    let shown = if scheme.is_empty() { "no scheme" } else { scheme.as_str() };
                    errors.push((
                        node.span,
                        format!("MCP server URL must use http or https, got '{shown}'."),
                    ));
                    None
                }
            }
        },
    };

    let explicit_type = match entry.get("type").filter(|node| !node.is_null()) {
        None => None,
        Some(node) => match lax_str(&node.value) {
            Err(msg) => {
                errors.push((node.span, msg.to_owned()));
                None
            }
            // Compared as written: the reference does not say `HTTP` is folded to `http`.
            Ok(text @ ("http" | "https")) => Some(text.to_owned()),
            Ok(text) => {
                errors.push((node.span, format!("Invalid MCP server type: {text}")));
                None
            }
        },
    };

    let tool_timeout = match entry.get("tool_timeout").filter(|node| !node.is_null()) {
        None => None,
        Some(node) => match lax_float(&node.value) {
            Err(msg) => {
                errors.push((node.span, msg.to_owned()));
                None
            }
            Ok(seconds) if !seconds.is_finite() => {
                errors.push((node.span, MSG_FINITE.to_owned()));
                None
            }
            Ok(seconds) if seconds <= 0.0 => {
                errors.push((node.span, "Input should be greater than 0".to_owned()));
                None
            }
            Ok(seconds) => Some(seconds),
        },
    };

    let meta_map = entry.get("meta_map").filter(|node| !node.is_null());
    let mut meta_map_static = Vec::new();
    if let Some(node) = meta_map {
        match node.get("static").filter(|node| !node.is_null()) {
            _ if node.as_map().is_none() => errors.push((node.span, MSG_DICT_TYPE.to_owned())),
            None => {}
            Some(statics) => match statics.as_map() {
                None => errors.push((statics.span, MSG_DICT_TYPE.to_owned())),
                Some(pairs) => {
                    for (key, value) in pairs {
                        match (lax_str(&key.value), lax_str(&value.value)) {
                            (Ok(k), Ok(v)) => meta_map_static.push((k.to_owned(), v.to_owned())),
                            (Err(msg), _) => errors.push((key.span, msg.to_owned())),
                            (_, Err(msg)) => errors.push((value.span, msg.to_owned())),
                        }
                    }
                }
            },
        }
    }

    if let Some(first) = errors.first() {
        let span = first.0;
        let text: Vec<String> = errors.into_iter().map(|(_, text)| text).collect();
        return Err((span, text.join("; ")));
    }
    let (Some((name, name_span)), Some((url, url_span, scheme))) = (name, url) else {
        return Err((entry.span, format!("url {MSG_MISSING}")));
    };

    // `validate_server`.
    if let Some((key, _)) = meta_map
        .and_then(|node| node.entry("from_slots"))
        .filter(|(_, value)| is_truthy(&value.value))
    {
        return Err((
            key.span,
            "meta_map.from_slots is not supported. Use meta_map.static for per-call MCP _meta."
                .to_owned(),
        ));
    }
    let extras: Vec<&(Node, Node)> =
        pairs.iter().filter(|pair| !SPEC_FIELDS.contains(&key_of(pair).as_str())).collect();
    let auth_pairs: Vec<(AuthKind, &Node, &Node)> = extras
        .iter()
        .filter_map(|(key, value)| {
            let kind = match key.as_str()? {
                "token" => AuthKind::Token,
                "api_key" => AuthKind::ApiKey,
                "oauth" => AuthKind::OAuth,
                "module" => AuthKind::Module,
                _ => return None,
            };
            Some((kind, key, value))
        })
        .collect();
    if auth_pairs.len() > 1 {
        let mut keys: Vec<&str> = auth_pairs.iter().map(|(kind, _, _)| kind.key()).collect();
        crate::order::sort(&mut keys);
        let list: Vec<String> = keys.iter().map(|key| python_str_repr(key)).collect();
        return Err((
            auth_pairs[1].1.span,
            format!(
                "Configure at most one MCP transport auth method; found [{}].",
                list.join(", ")
            ),
        ));
    }
    let auth = match auth_pairs.first() {
        None => None,
        Some(&(kind, key, value)) => {
            let secret = match kind {
                AuthKind::Token | AuthKind::ApiKey => Some((kind.key(), value)),
                AuthKind::OAuth => value.entry("client_secret").map(|(_, v)| ("client_secret", v)),
                AuthKind::Module => None,
            };
            let env_var = match secret {
                None => None,
                Some((secret_key, node)) => match node.as_str().and_then(env_reference) {
                    Some(var) => Some(var),
                    None => {
                        return Err((
                            node.span,
                            format!(
                                "You defined the '{secret_key}' in MCP server as a string. The \
                                 '{secret_key}' must be set as an environment variable. Please \
                                 update your config."
                            ),
                        ));
                    }
                },
            };
            Some(Auth { kind, env_var, span: key.span })
        }
    };

    Ok(McpServer {
        index,
        name,
        url,
        server_type: explicit_type.clone().unwrap_or(scheme),
        type_explicit: explicit_type.is_some(),
        tool_timeout,
        meta_map_static,
        auth,
        additional_params: extras.iter().map(|pair| key_of(pair)).collect(),
        headers_present: extras.iter().any(|pair| key_of(pair) == "headers"),
        span: entry.span,
        name_span,
        url_span,
    })
}

/// `^[A-Za-z0-9][A-Za-z0-9_.-]*$`.
fn matches_name_pattern(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// `re.match(r"\${(\w+)}", value)`: the variable's name when `value` starts with `${NAME}`.
fn env_reference(value: &str) -> Option<String> {
    let rest = value.strip_prefix("${")?;
    let end = rest.find('}')?;
    let name = &rest[..end];
    let word = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    word.then(|| name.to_owned())
}

/// Python truthiness of a YAML value.
fn is_truthy(value: &YamlValue) -> bool {
    match value {
        YamlValue::Null => false,
        YamlValue::Bool(flag) => *flag,
        YamlValue::Int(number) => *number != 0,
        YamlValue::Float(number) => *number != 0.0,
        YamlValue::Str(text) | YamlValue::Timestamp(text) => !text.is_empty(),
        YamlValue::Bytes(bytes) => !bytes.is_empty(),
        YamlValue::Seq(items) => !items.is_empty(),
        YamlValue::Map(entries) => !entries.is_empty(),
    }
}

/// `IntegrationConfig` and train validation (§4.4): no `llm:` section, no `api_key_env`
/// in a model group. `load_integration_mcp_servers` ignores both.
fn read_config_rules(root: &Node, out: &mut Integrations) {
    if let Some((key, _)) = root.entry("llm") {
        out.config_ok = false;
        out.diagnostics.push(Diagnostic::error(
            &out.file,
            key.span,
            Phase::Train,
            CODE_LLM_SECTION,
            "'integrations.yml' must not contain an 'llm:' section. Set \
             'orchestrator.model_group' in 'agent.yml' instead.",
        ));
    }
    let groups = root.get("model_groups").and_then(Node::as_seq).unwrap_or_default();
    for group in groups {
        let id = group.get("id").map_or_else(|| "None".to_owned(), |id| python_str(&id.value));
        if group.as_map().is_some() {
            out.model_group_ids.push(id.clone());
        }
        let models = group.get("models").and_then(Node::as_seq).unwrap_or_default();
        let found = group
            .entry("api_key_env")
            .or_else(|| models.iter().find_map(|model| model.entry("api_key_env")));
        if let Some((key, _)) = found {
            out.diagnostics.push(Diagnostic::error(
                &out.file,
                key.span,
                Phase::Train,
                CODE_API_KEY_ENV,
                format!(
                    "Model group '{id}' uses 'api_key_env', which is no longer supported. \
                     Replace it with 'api_key: ${{ENV_VAR_NAME}}'."
                ),
            ));
        }
    }
}
