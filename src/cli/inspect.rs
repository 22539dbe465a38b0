//! `attnscope inspect`: one token's journey through one layer, every vector from the model
//! (JSON names: docs/json.md, "Journey JSON").

use clap::Args;

use super::{decode, session, Decode};
use crate::session::Inspect;
use crate::trace::journey::{AttentionJourney, Journey, Stack};
use crate::{block_on, Result};

/// The arguments of `attnscope inspect`.
#[derive(Args)]
pub struct InspectArgs {
    #[command(flatten)]
    decode: Decode,
    /// `encoder` or `decoder`.
    #[arg(long, value_parser = Stack::parse)]
    stack: Stack,
    /// The layer within the stack (0 = the first).
    #[arg(long)]
    layer: usize,
    /// The position: a source token, or a decoder input position (0 = `<s>`; position P
    /// predicted output token P + 1).
    #[arg(long)]
    position: usize,
    /// Print every vector as JSON instead of a summary.
    #[arg(long)]
    json: bool,
}

/// Translate the text (after `--prefix`, if given), then follow the position through the layer.
pub fn run(args: InspectArgs) -> Result<()> {
    let mut session = session(&args.decode)?;
    decode(&mut session, &args.decode)?;
    let request = Inspect {
        stack: args.stack,
        layer: args.layer,
        position: args.position,
    };
    let journey = block_on(session.inspect(request))?;
    if args.json {
        let text = serde_json::to_string(&journey)?;
        println!("{text}");
    } else {
        print_journey(&journey);
    }
    Ok(())
}

/// A few numbers of a long vector.
fn head_of(values: &[f32]) -> String {
    let shown: Vec<String> = values.iter().take(4).map(|v| format!("{v:.3}")).collect();
    let more = if values.len() > 4 { ", …" } else { "" };
    format!("[{}{more}] ({} numbers)", shown.join(", "), values.len())
}

fn print_journey(j: &Journey) {
    println!(
        "{:?} position {} {:?}, layer {} of {}: d_model {} = {} heads × {}, d_ff {}, {:?}-norm",
        j.stack, j.position, j.token, j.layer, j.layers, j.d_model, j.heads, j.d_k, j.d_ff, j.norm
    );
    if let (Some(embedding), Some(positional)) = (&j.embedding, &j.positional) {
        println!("  embedding × {:.3}  {}", j.embed_scale, head_of(embedding));
        println!("  + positional      {}", head_of(positional));
    }
    println!("  input x           {}", head_of(&j.input));
    print_attention("self-attention", &j.self_attention, j.d_k);
    if let Some(cross) = &j.cross_attention {
        print_attention("cross-attention", cross, j.d_k);
    }
    let ffn = &j.feed_forward;
    println!(
        "  feed-forward: {} hidden, {} exactly 0; norm over mean {:.4}, std {:.4}",
        ffn.hidden.len(),
        ffn.zeros,
        ffn.mean,
        ffn.std
    );
    println!("  output            {}", head_of(&j.output));
    if let Some(top) = &j.top {
        let listed: Vec<String> = top
            .iter()
            .map(|c| format!("{} {:.3}", c.token, c.probability))
            .collect();
        println!("  next token: {}", listed.join(", "));
    }
}

fn print_attention(name: &str, a: &AttentionJourney, d_k: usize) {
    println!(
        "  {name}: norm over mean {:.4}, std {:.4}; per head softmax(q·k_j ÷ √{d_k}):",
        a.mean, a.std
    );
    for (h, head) in a.heads.iter().enumerate() {
        let row: Vec<String> = a
            .key_tokens
            .iter()
            .zip(head.weights.iter())
            .map(|(token, w)| format!("{token} {w:.2}"))
            .collect();
        println!("    head {h}: {}", row.join("  "));
    }
}
