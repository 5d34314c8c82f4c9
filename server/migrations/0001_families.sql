-- Families, parent accounts, devices, sessions, pairing codes and the change
-- log. Every table but `families` itself (keyed by the family),
-- `server_keys` and `auth_attempts` (read before anyone is known) carries
-- `family_id`, leads its keys with it (so the tables can be distributed by
-- family), and is guarded by a row-level-security policy on the setting
-- `deskmate.family`, which the server sets per transaction.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'deskmate_app') THEN
    CREATE ROLE deskmate_app NOLOGIN;
  END IF;
-- The role is cluster-wide: another database of the cluster may be making it
-- at this very moment.
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;
-- The connecting (owner) role must be able to SET ROLE to it.
DO $$
BEGIN
  EXECUTE format('GRANT deskmate_app TO %I', current_user);
EXCEPTION WHEN others THEN NULL;
END
$$;

CREATE FUNCTION deskmate_family() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('deskmate.family', true), '')::uuid $$;

CREATE TABLE server_keys (
  name text PRIMARY KEY,
  secret bytea NOT NULL
);

CREATE TABLE auth_attempts (
  key text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_attempts_key ON auth_attempts (key, at);

CREATE TABLE families (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  owner_account uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE accounts (
  family_id uuid NOT NULL REFERENCES families (id),
  id uuid NOT NULL,
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (family_id, id)
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE devices (
  family_id uuid NOT NULL REFERENCES families (id),
  id uuid NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('parent', 'paired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz,
  revoked_at timestamptz,
  PRIMARY KEY (family_id, id)
);

CREATE TABLE sessions (
  family_id uuid NOT NULL REFERENCES families (id),
  id uuid NOT NULL,
  device_id uuid NOT NULL,
  account_id uuid,
  refresh_hash bytea NOT NULL,
  previous_refresh_hash bytea,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  PRIMARY KEY (family_id, id)
);
CREATE UNIQUE INDEX sessions_refresh ON sessions (refresh_hash);
CREATE INDEX sessions_previous_refresh ON sessions (previous_refresh_hash);

CREATE TABLE pairing_codes (
  family_id uuid NOT NULL REFERENCES families (id),
  code_hash bytea NOT NULL,
  created_by uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (family_id, code_hash)
);
CREATE UNIQUE INDEX pairing_codes_hash ON pairing_codes (code_hash);

CREATE TABLE changes (
  family_id uuid NOT NULL REFERENCES families (id),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  change_id uuid NOT NULL,
  device_id uuid NOT NULL,
  kind text NOT NULL,
  record_id uuid NOT NULL,
  hlc text NOT NULL,
  deleted boolean NOT NULL DEFAULT false,
  body jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (family_id, seq)
);
CREATE UNIQUE INDEX changes_change_id ON changes (family_id, change_id);

ALTER TABLE families ENABLE ROW LEVEL SECURITY;
ALTER TABLE accounts ENABLE ROW LEVEL SECURITY;
ALTER TABLE devices ENABLE ROW LEVEL SECURITY;
ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE pairing_codes ENABLE ROW LEVEL SECURITY;
ALTER TABLE changes ENABLE ROW LEVEL SECURITY;

CREATE POLICY family_scope ON families TO deskmate_app
  USING (id = deskmate_family()) WITH CHECK (id = deskmate_family());
CREATE POLICY family_scope ON accounts TO deskmate_app
  USING (family_id = deskmate_family()) WITH CHECK (family_id = deskmate_family());
CREATE POLICY family_scope ON devices TO deskmate_app
  USING (family_id = deskmate_family()) WITH CHECK (family_id = deskmate_family());
CREATE POLICY family_scope ON sessions TO deskmate_app
  USING (family_id = deskmate_family()) WITH CHECK (family_id = deskmate_family());
CREATE POLICY family_scope ON pairing_codes TO deskmate_app
  USING (family_id = deskmate_family()) WITH CHECK (family_id = deskmate_family());
CREATE POLICY family_scope ON changes TO deskmate_app
  USING (family_id = deskmate_family()) WITH CHECK (family_id = deskmate_family());

GRANT SELECT ON families, accounts TO deskmate_app;
GRANT SELECT, INSERT, UPDATE ON devices, sessions, pairing_codes TO deskmate_app;
GRANT SELECT, INSERT ON changes TO deskmate_app;
