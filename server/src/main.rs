//! `deskmate-server --database-url URL [--port P]`: the family sync server.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use clap::Parser;

/// The Deskmate family sync server (accounts, devices, change log) on PostgreSQL.
#[derive(Debug, Parser)]
#[command(name = "deskmate-server", version)]
struct Args {
    /// PostgreSQL URL, e.g. postgres://deskmate@localhost/deskmate
    #[arg(long, env = "DESKMATE_DATABASE_URL")]
    database_url: String,
    /// Port to listen on (0 picks a free one and prints it).
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Lifetime of an access token, in seconds.
    #[arg(long, default_value_t = 900)]
    access_ttl_secs: u64,
    /// Lifetime of a refresh token, in days.
    #[arg(long, default_value_t = 30)]
    refresh_ttl_days: u64,
    /// Database connections per process.
    #[arg(long, default_value_t = 16)]
    pool_size: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    deskmate_server::serve(deskmate_server::ServerConfig {
        database_url: args.database_url,
        bind: SocketAddr::new(args.bind, args.port),
        access_ttl: Duration::from_secs(args.access_ttl_secs),
        refresh_ttl: Duration::from_secs(args.refresh_ttl_days * 86_400),
        pool_size: args.pool_size,
    })
    .await
}
