use super::*;

/// Secrets of every kind the module doc names (all fake), each with the
/// part that must not survive.
pub(crate) const SECRETS: &[(&str, &str)] = &[
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("export AWS_SECRET_ACCESS_KEY=\"wJalrXUtnFEMI/K7MDENG/bPxRfiCY\"", "wJalrXUtnFEMI"),
    ("DB_PASSWORD=hunter2hunter2", "hunter2"),
    ("POSTGRES_PASSWORD: s3cr3t-pw", "s3cr3t-pw"),
    ("MYSQL_ROOT_PASSWD=rootpw123", "rootpw123"),
    ("REDIS_PASS=redispass99", "redispass99"),
    ("GITHUB_TOKEN=abcdef0123456789abcdef", "abcdef0123456789"),
    ("NPM_AUTH_TOKEN='npmtokvalue123'", "npmtokvalue123"),
    ("STRIPE_API_KEY=stripe-api-key-value", "stripe-api-key-value"),
    ("OPENAI_APIKEY=some-api-key-value", "some-api-key-value"),
    ("GCP_PRIVATE_KEY=pk-material-value", "pk-material-value"),
    ("AZURE_CLIENT_SECRET=azcs~value.123", "azcs~value.123"),
    ("GOOGLE_APPLICATION_CREDENTIALS_JSON=credblob123", "credblob123"),
    ("JWT_SIGNING_KEY=signing-key-material", "signing-key-material"),
    ("{\"clientSecret\": \"cs-value-4242\"}", "cs-value-4242"),
    ("{\"password\":\"pw-in-json\"}", "pw-in-json"),
    ("api_key: yaml-api-key-value", "yaml-api-key-value"),
    ("db.password=dotted-pw-value", "dotted-pw-value"),
    ("mysql --password=cli-pw-value -u root", "cli-pw-value"),
    ("deploy --token cli-token-value --verbose", "cli-token-value"),
    ("Authorization: Bearer abc.def.ghi-bearer-token", "abc.def.ghi-bearer-token"),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", "dXNlcjpwYXNzd29yZA"),
    ("authorization=token ghtoken-style-value", "ghtoken-style-value"),
    ("header Bearer eyJhbGciOiJIUzI1NiJ9abcdef", "eyJhbGciOiJIUzI1NiJ9abcdef"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nlinetwo==\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA7bq",
    ),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\ncutoff", "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\n-----END EC PRIVATE KEY-----", "MHcCAQEEIBkg"),
    ("https://deploy:urlpassword@git.example.com/repo.git", "urlpassword"),
    ("key AKIAIOSFODNN7EXAMPLE in use", "AKIAIOSFODNN7EXAMPLE"),
    ("session ASIAIOSFODNN7EXAMPL2", "ASIAIOSFODNN7EXAMPL2"),
    ("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "ghp_0123456789"),
    ("gho_0123456789abcdefghijklmnopqrstuvwxyzAB", "gho_0123456789"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "github_pat_11ABCDEFG"),
    ("glpat-abcdefghij0123456789", "glpat-abcdefghij"),
    ("xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-123456789012"),
    ("xapp-1-A0123456789-0123456789012-abcdef", "xapp-1-A0123456789"),
    ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "T00000000/B00000000"),
    ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("rk_test_4eC39HqLyjWDarjtT1zdp7dc", "rk_test_4eC39"),
    ("whsec_abcdefghijklmnopqrstuvwx", "whsec_abcdefghijkl"),
    ("sk-proj-abcdefghijklmnopqrstuvwxyz012345", "sk-proj-abcdefghij"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-ant-api03-abcdefghij"),
    ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "AIzaSyA-abcdefghij"),
    ("ya29.a0AfH6SMBabcdefghijklmnopqrstuv", "ya29.a0AfH6SMB"),
    ("GOCSPX-abcdefghijklmnopqrstuvwx", "GOCSPX-abcdefghij"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghij"),
    ("pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdo", "pypi-AgEIcHlwaS5v"),
    ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghij"),
    ("SG.abcdefghijklmnopqrst.abcdefghijklmnopqrstuvwxyz", "SG.abcdefghijklmn"),
    (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N",
    ),
    // Shapes an adversarial run found uncaught (issue 32).
    ("PGPASSWORD=pgsecret99 psql -h db", "pgsecret99"),
    ("MYSQL_PWD=mysqlpw77 mysql -u root", "mysqlpw77"),
    ("curl -u admin:curlpass42 https://api.example.com", "curlpass42"),
    ("curl -sS --user admin:curlpass43 https://api.example.com", "curlpass43"),
    ("curl -uadmin:curlpass44 https://api.example.com", "curlpass44"),
    ("mysql -u root -pMyPw1234 appdb", "MyPw1234"),
    ("mysqldump -h db -psecretdump9 appdb > dump.sql", "secretdump9"),
    ("sshpass -p sshpw5678 ssh deploy@host", "sshpw5678"),
    ("Cookie: session=abcdef123456; theme=dark", "abcdef123456"),
    ("set-cookie: sid=31d4d96e407aad42; Path=/; HttpOnly", "31d4d96e407aad42"),
    ("{\"Cookie\": \"sid=cookievalue77\"}", "cookievalue77"),
    ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "K7MDENG/bPxRfiCY"),
    ("aws configure set aws_secret_access_key je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", "je7MtGbClwBF"),
];

/// Text that looks like a secret and is not: hashes, UUIDs, our own
/// checksums and ids, ordinary words near secret words.
const LOOK_ALIKES: &[&str] = &[
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "\"checksum\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"",
    "commit 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
    "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "550e8400-e29b-41d4-a716-446655440000",
    "\"execution_id\":\"01a2017e-98ba-7694-bf18-c96a653c90e5\"",
    "\"span_id\":\"7f3a9c1e2b4d6f80\"",
    "password policy updated",
    "test result: ok. 42 passed; 0 failed",
    "secretary=Jane Doe",
    "max_tokens=4096",
    "tokens: 1234",
    "passwordless=true",
    "PWD=/home/user/project",
    "OLDPWD=/tmp",
    "KEY=value",
    "primary_key=id",
    "sort --key=2 file.txt",
    "monkey=banana",
    "keyboard: us",
    "the token bucket refills",
    "Basic usage: run the tool",
    "Bearer of bad news",
    "disk-usage report",
    "task-list-entry",
    "sk-learn",
    "ghost_town",
    "gluten free",
    "AKIA is a prefix",
    "https://example.com/path?q=1",
    "http://localhost:8080/api",
    "ssh://git@github.com/owner/repo.git",
    "-----BEGIN CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----",
    "version=1.2.3",
    "TOKEN_TYPE=",
    "password:",
    "password=ab",
    "the passing grade",
    "compass=north",
    "PASSED=12",
    "byte_start=120 byte_end=140",
    "dGhpcyBpcyBub3QgYSBzZWNyZXQ=",
    "user=bob host=db.internal",
    "x-api-version: 2",
    "eyJ is how JWTs start",
    "docker run -u 1000:1000 image",
    "mysql -P 3306 -h db -p",
    "ps -u root -o pid",
    "cookies: 3 found",
    "git log 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
    "SHA1 2FD4E1C67A2D28FCED849EE1BB76E7391B93EB12",
    "abcdefghijabcdefghijabcdefghijabcdefghij",
    "src/aide_core/redact/stream_redactor_tests.rs",
    "PWD_HISTORY=off",
];

#[test]
fn every_secret_in_the_corpus_is_redacted() {
    assert!(SECRETS.len() >= 40);
    for (text, secret_part) in SECRETS {
        let (out, n) = redact(text);
        assert!(n >= 1, "not redacted: {text}");
        assert!(!out.contains(secret_part), "{secret_part} survives in {out}");
        assert!(out.contains(MARK), "{out}");
    }
    // All of them in one text, as `env` would print them.
    let all: Vec<&str> = SECRETS.iter().map(|(t, _)| *t).collect();
    let (out, _) = redact(&all.join("\n"));
    for (_, secret_part) in SECRETS {
        assert!(!out.contains(secret_part), "{secret_part} survives in the joined text");
    }
}

#[test]
fn no_look_alike_is_redacted() {
    assert!(LOOK_ALIKES.len() >= 40);
    for text in LOOK_ALIKES {
        assert_eq!(redact(text), (text.to_string(), 0), "redacted a look-alike: {text}");
    }
    let joined = LOOK_ALIKES.join("\n");
    assert_eq!(redact(&joined).1, 0);
}

#[test]
fn assignments_keep_their_shape() {
    let (out, n) = redact("password=hunter22 user=bob\ntoken: 'abc123xyz'\n");
    assert_eq!(n, 2, "{out}");
    assert_eq!(out, "password=[REDACTED] user=bob\ntoken: '[REDACTED]'\n");
    let (out, _) = redact("https://user:s3cret@example.com/x");
    assert_eq!(out, "https://user:[REDACTED]@example.com/x");
    // Redacting twice changes nothing more.
    assert_eq!(redact(&out), (out.clone(), 0));
}

#[test]
fn overlapping_rules_make_one_mark() {
    // The name rule and the AWS shapes both match: one secret, one mark.
    let (out, n) = redact("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY done");
    assert_eq!((out.as_str(), n), ("AWS_SECRET_ACCESS_KEY=[REDACTED] done", 1));
    let (out, n) = redact("Authorization: Bearer abcdefghijklmnop");
    assert_eq!((out.as_str(), n), ("Authorization: [REDACTED]", 1));
}

#[test]
fn a_complete_pem_block_is_one_mark_and_what_follows_stays() {
    let text =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----\nnext line of text\n";
    assert_eq!(redact(text), ("[REDACTED]\nnext line of text\n".to_string(), 1));
}

#[test]
fn known_values_are_redacted_wherever_they_appear() {
    let r = Redactor::with_values(["s3cr3t-value", "abc", "s3cr3t-value"]);
    let (out, n) = r.redact("echo s3cr3t-value; x=s3cr3t-values abc");
    assert_eq!((out.as_str(), n), ("echo [REDACTED]; x=[REDACTED]s abc", 2));
    assert!(!Redactor::with_values(["abc"]).has_values(), "values under 4 characters are left to the rules");
}

#[test]
fn bytes_that_are_not_utf8_are_kept_and_secrets_around_them_found() {
    let text = b"\xff\xfe password=hunter22 \xff";
    let (out, n) = Redactor::default().redact_bytes(text);
    assert_eq!((out.as_slice(), n), (&b"\xff\xfe password=[REDACTED] \xff"[..], 1));
}

#[test]
fn name_parts_split_at_separators_and_humps() {
    assert_eq!(name_parts("AWS_SECRET_ACCESS_KEY"), ["aws", "secret", "access", "key"]);
    assert_eq!(name_parts("clientSecret"), ["client", "secret"]);
    assert_eq!(name_parts("db.password-2"), ["db", "password", "2"]);
    assert!(is_secret_name("apiKey") && is_secret_name("X_API_KEY") && is_secret_name("DB_PASS"));
    assert!(!is_secret_name("KEY") && !is_secret_name("primary_key") && !is_secret_name("PWD"));
    assert!(is_secret_name("PGPASSWORD") && is_secret_name("MYSQL_PWD") && is_secret_name("dbPasswd"));
    assert!(!is_secret_name("OLDPWD") && !is_secret_name("passwordless") && !is_secret_name("PWD_HISTORY"));
}
