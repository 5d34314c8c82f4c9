//! `deskmate serve`: the local HTTP API (`crates/api`) on one address —
//! loopback by default — over the same core the window and the other
//! commands use. `--print-token` prints the token clients send (made in the
//! data directory when `DESKMATE_API_TOKEN` does not set one) and exits.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use deskmate_app::Deskmate;

#[derive(Args)]
pub struct ServeArgs {
    /// The address to listen on. Anything but loopback lets other machines
    /// reach the API (the token still guards it); the Host header may then
    /// also name this address.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port (0: any free one; the address is printed on stderr).
    #[arg(long, default_value_t = 8123)]
    port: u16,
    /// Print the API token and exit.
    #[arg(long)]
    print_token: bool,
}

pub fn run(app: &Deskmate, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let token = deskmate_api::load_or_create_token(&app.config().data_dir).with_context(|| {
        format!(
            "cannot read or make the API token in {}",
            app.config().data_dir.display()
        )
    })?;
    if args.print_token {
        println!("{token}");
        return Ok(ExitCode::SUCCESS);
    }
    app.chat().recover_runs()?;
    // A long-running front end keeps the family's devices in step (it idles
    // while sync is off).
    app.start_sync()?;
    // And reads quiet conversations for memories when a model is set.
    app.follow_conversations(
        deskmate_app::memories::SWEEP_EVERY,
        deskmate_app::memories::QUIET_FOR,
    )?;
    let rt = crate::runtime()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port))
            .await
            .with_context(|| format!("cannot listen on {}:{}", args.host, args.port))?;
        let addr = listener.local_addr().context("cannot read the address")?;
        eprintln!(
            "deskmate serve: listening on http://{addr} (token: deskmate serve --print-token)"
        );
        let security = deskmate_api::Security::new(&token, &args.host);
        let outcome = tokio::select! {
            served = deskmate_api::serve(app.clone(), listener, security) => {
                served.context("the server stopped")
            }
            _ = tokio::signal::ctrl_c() => {
                eprintln!("deskmate serve: stopped");
                Ok(())
            }
        };
        app.stop_sync();
        outcome.map(|()| ExitCode::SUCCESS)
    })
}
