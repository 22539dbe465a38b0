//! The two sublayers around attention, in the order the paper introduces them: the
//! position-wise feed-forward network, and Add & Norm (a residual connection with its LayerNorm).

use burn::config::Config;
use burn::module::Module;
use burn::nn::{
    Dropout, DropoutConfig, Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig,
};
use burn::tensor::activation::{gelu, relu, silu};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use super::config::{Activation, ModelConfig};
use super::dropout;
use super::packed::{project, PackedLinear};

// ---------------------------------------------------------------------------------------------
// Position-wise feed-forward network
// ---------------------------------------------------------------------------------------------

/// linear_1 → activation (ReLU, GELU or swish) → dropout → linear_2, applied to every position
/// alone.
#[derive(Module, Debug)]
pub struct FeedForward {
    /// `d_model → d_ff`, with bias.
    pub linear_1: Linear,
    /// `d_ff → d_model`, with bias.
    pub linear_2: Linear,
    dropout: Dropout,
    #[module(skip)]
    activation: Activation,
}

/// A feed-forward block's settings: `FeedForwardConfig::new(d_model, d_ff).init(&device)`.
#[derive(Config, Debug)]
pub struct FeedForwardConfig {
    /// Width of the block's input and output.
    pub d_model: usize,
    /// Width of the hidden layer (4 × d_model in the paper).
    pub d_ff: usize,
    /// Dropout on the hidden activations while training.
    #[config(default = 0.1)]
    pub dropout: f64,
    /// The activation between the two linear maps.
    #[config(default = "Activation::Relu")]
    pub activation: Activation,
}

impl FeedForwardConfig {
    /// The settings `config` gives a block of hidden width `d_ff`.
    pub fn from_model(config: &ModelConfig, d_ff: usize) -> Self {
        Self::new(config.d_model, d_ff)
            .with_dropout(config.dropout)
            .with_activation(config.activation)
    }

    /// A randomly initialised block (Xavier-uniform weights).
    pub fn init(&self, device: &Device) -> FeedForward {
        let xavier = Initializer::XavierUniform { gain: 1.0 };
        FeedForward {
            linear_1: LinearConfig::new(self.d_model, self.d_ff)
                .with_initializer(xavier.clone())
                .init(device),
            linear_2: LinearConfig::new(self.d_ff, self.d_model)
                .with_initializer(xavier)
                .init(device),
            dropout: DropoutConfig::new(self.dropout).init(),
            activation: self.activation,
        }
    }
}

impl FeedForward {
    /// The hidden activations: `linear_1`, then the activation.
    ///
    /// # Shapes
    /// `[batch, len, d_model]` → `[batch, len, d_ff]`.
    pub fn hidden(&self, x: Tensor<3>) -> Tensor<3> {
        self.hidden_with(x, None)
    }

    /// [`Self::hidden`], through a packed copy of `linear_1` where given.
    pub fn hidden_with(&self, x: Tensor<3>, packed: Option<&PackedLinear>) -> Tensor<3> {
        let hidden = project(&self.linear_1, packed, x); // [batch, len, d_ff]
        match self.activation {
            Activation::Relu => relu(hidden),
            Activation::Gelu => gelu(hidden),
            Activation::Swish => silu(hidden),
        }
    }

    /// The activation between the two linear maps.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// The block's output from its hidden activations: dropout, then `linear_2`.
    ///
    /// # Shapes
    /// `[batch, len, d_ff]` → `[batch, len, d_model]`.
    pub fn project(&self, hidden: Tensor<3>) -> Tensor<3> {
        self.project_with(hidden, None)
    }

    /// [`Self::project`], through a packed copy of `linear_2` where given.
    pub fn project_with(&self, hidden: Tensor<3>, packed: Option<&PackedLinear>) -> Tensor<3> {
        project(
            &self.linear_2,
            packed,
            dropout::apply(&self.dropout, hidden),
        )
    }

    /// # Shapes
    /// `[batch, len, d_model]` → `[batch, len, d_model]`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        self.project(self.hidden(x))
    }

    /// [`Self::forward`], through packed copies of `linear_1` and `linear_2` where given.
    pub fn forward_with(&self, x: Tensor<3>, packed: Option<&[PackedLinear; 2]>) -> Tensor<3> {
        let hidden = self.hidden_with(x, packed.map(|p| &p[0]));
        self.project_with(hidden, packed.map(|p| &p[1]))
    }
}

// ---------------------------------------------------------------------------------------------
// Add & Norm
// ---------------------------------------------------------------------------------------------

/// Where the LayerNorms go: the three choices the config's `norm_first` and `layer_norm` make.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Normalisation {
    /// `x + f(norm(x))`, and a final norm after each stack.
    Pre,
    /// `norm(x + f(x))`, as in the paper.
    #[default]
    Post,
    /// `x + f(x)`: no LayerNorm anywhere.
    None,
}

impl ModelConfig {
    /// Where the LayerNorms go.
    pub fn normalisation(&self) -> Normalisation {
        match (self.layer_norm, self.norm_first) {
            (false, _) => Normalisation::None,
            (true, true) => Normalisation::Pre,
            (true, false) => Normalisation::Post,
        }
    }

    /// Put the LayerNorms where `normalisation` says.
    pub fn set_normalisation(&mut self, normalisation: Normalisation) {
        self.layer_norm = normalisation != Normalisation::None;
        self.norm_first = normalisation == Normalisation::Pre;
    }
}

/// One residual connection around a sublayer, with its LayerNorm in either placement, or none.
#[derive(Module, Debug)]
pub struct Residual {
    /// The LayerNorm (`weight`/`bias` in PyTorch's names, `gamma`/`beta` in burn's); `None`
    /// in a model without LayerNorm.
    pub norm: Option<LayerNorm>,
    dropout: Dropout,
    norm_first: bool,
    /// The norm's ε (burn's `LayerNorm` keeps its own private).
    #[module(skip)]
    epsilon: f64,
}

/// A residual connection's settings: `ResidualConfig::new(d_model).with_norm_first(true)`.
#[derive(Config, Debug)]
pub struct ResidualConfig {
    /// Width of the residual stream.
    pub d_model: usize,
    /// LayerNorm's ε, added to the variance before the square root.
    #[config(default = 1e-5)]
    pub layer_norm_eps: f64,
    /// Dropout on the sublayer's output while training.
    #[config(default = 0.1)]
    pub dropout: f64,
    /// Pre-norm (`x + f(norm(x))`) instead of the paper's post-norm (`norm(x + f(x))`).
    #[config(default = false)]
    pub norm_first: bool,
    /// Whether there is a LayerNorm at all (`false`: `x + f(x)`).
    #[config(default = true)]
    pub layer_norm: bool,
}

impl ResidualConfig {
    /// The settings `config` gives every residual connection.
    pub fn from_model(config: &ModelConfig) -> Self {
        Self::new(config.d_model)
            .with_layer_norm_eps(config.layer_norm_eps)
            .with_dropout(config.dropout)
            .with_norm_first(config.norm_first)
            .with_layer_norm(config.layer_norm)
    }

    /// A fresh residual connection.
    pub fn init(&self, device: &Device) -> Residual {
        Residual {
            norm: self.layer_norm.then(|| {
                LayerNormConfig::new(self.d_model)
                    .with_epsilon(self.layer_norm_eps)
                    .init(device)
            }),
            dropout: DropoutConfig::new(self.dropout).init(),
            norm_first: self.norm_first,
            epsilon: self.layer_norm_eps,
        }
    }
}

impl Residual {
    /// Whether the norm comes first (pre-norm).
    pub fn norm_first(&self) -> bool {
        self.norm_first
    }

    /// The norm's ε.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The sublayer's input: `norm(x)` in pre-norm, `x` itself otherwise.
    pub fn input(&self, x: Tensor<3>) -> Tensor<3> {
        match &self.norm {
            Some(norm) if self.norm_first => norm.forward(x),
            _ => x,
        }
    }

    /// Combine: `x + dropout(y)` in pre-norm and without a norm, `norm(x + dropout(y))` in
    /// post-norm.
    pub fn output(&self, x: Tensor<3>, sublayer_output: Tensor<3>) -> Tensor<3> {
        let sum = x + dropout::apply(&self.dropout, sublayer_output);
        match &self.norm {
            Some(norm) if !self.norm_first => norm.forward(sum),
            _ => sum,
        }
    }
}
