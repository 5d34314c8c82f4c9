-- A second parent joins a family by invitation: the owner names an email,
-- the server keeps a hash of a one-time code (7 days), and the invited
-- person accepts with the code and that email. Keyed by family first and
-- guarded by the same row-level-security policy as every family table.

CREATE TABLE invitations (
  family_id uuid NOT NULL REFERENCES families (id),
  id uuid NOT NULL,
  email text NOT NULL,
  code_hash bytea NOT NULL,
  invited_by uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_account uuid,
  revoked_at timestamptz,
  PRIMARY KEY (family_id, id)
);
CREATE UNIQUE INDEX invitations_code ON invitations (code_hash);

ALTER TABLE invitations ENABLE ROW LEVEL SECURITY;
CREATE POLICY family_scope ON invitations TO deskmate_app
  USING (family_id = deskmate_family()) WITH CHECK (family_id = deskmate_family());
GRANT SELECT, INSERT, UPDATE ON invitations TO deskmate_app;
