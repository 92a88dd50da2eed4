"""LoRA adapters (peft) for fine-tuning a decoder-only LM whose every weight would not fit.

With ``train.lora_rank = r > 0`` the linear layers named by ``train.lora_modules`` get a pair of
low-rank matrices each (``A``: r × in, ``B``: out × r, ``B`` starting at zero) and the layer
computes ``W x + (alpha / r) · B A x``; every weight of the model is frozen, so the optimizer
holds ``A`` and ``B`` only.

A checkpoint stays a full model: ``model.safetensors`` holds the merged weights
``W + (alpha / r) · B A`` (computed for the file, never written into the live model), so
``hf-causal:``, ``eval``, post-hoc debiasing and ``translate`` read it as any other. The adapter
matrices are saved beside it (:data:`ADAPTER_FILE`) with the optimizer state: a resume builds the
model from ``model.init`` again, takes every weight LoRA leaves alone from the checkpoint (the
base's own, or as ``debias.when = "init"`` edited it), adds the adapters and loads them, and
continues exactly where the run stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from ..errors import CheckpointError, ConfigError

# no adapter_config.json is written beside it on purpose: transformers would then load the
# adapter onto the merged weights and count it twice
ADAPTER_FILE = "adapter.safetensors"
ADAPTER_NAME = "default"  # peft's name for a model's one adapter


def require_peft() -> None:
    """peft is an optional dependency: say how to get it, before any work."""
    import importlib.util

    if importlib.util.find_spec("peft") is None:
        raise ConfigError("train.lora_rank > 0 trains LoRA adapters with peft, which is not installed",
                          hint="pip install 'mtdebias[lora]', or set train.lora_rank = 0 (full fine-tuning)")


def resolved_alpha(rank: int, alpha: float) -> float:
    """``train.lora_alpha``, where 0 (the default) means twice the rank: the adapters' scale
    alpha / r is then 2 whatever the rank."""
    return alpha if alpha > 0 else 2.0 * rank


def adapted_layers(model: Any, suffixes: tuple[str, ...] | list[str]) -> list[str]:
    """Full names of the linear layers that ``suffixes`` name (a layer matches a suffix when its
    name is the suffix or ends in ``.suffix``, as peft matches them). Each suffix must match a
    linear layer whose weight is its own: a suffix matching nothing, anything but a linear layer,
    or a layer sharing its matrix (an output projection tied to the input embeddings) is refused."""
    modules = dict(model.named_modules())
    owners: dict[int, int] = {}
    for _, param in model.named_parameters(remove_duplicate=False):
        owners[param.data_ptr()] = owners.get(param.data_ptr(), 0) + 1
    linear_ends = sorted({name.rsplit(".", 1)[-1] for name, module in modules.items()
                          if isinstance(module, torch.nn.Linear)})
    found: list[str] = []
    for suffix in suffixes:
        matches = [name for name in modules if name and (name == suffix or name.endswith("." + suffix))]
        if not matches:
            raise ConfigError(f"train.lora_modules: {suffix!r} names no layer of this {type(model).__name__}",
                              hint=f"its linear layers end in {', '.join(linear_ends)}; fix train.lora_modules")
        for name in matches:
            module = modules[name]
            if not isinstance(module, torch.nn.Linear):
                raise ConfigError(f"train.lora_modules: {suffix!r} matches {name} ({type(module).__name__}); "
                                  "LoRA here adapts linear layers only",
                                  hint=f"name linear layers ({', '.join(linear_ends)})")
            if owners[module.weight.data_ptr()] > 1:
                raise ConfigError(f"train.lora_modules: {name} shares its weight with another layer (as an output "
                                  "projection tied to the input embeddings does); its merged weight could not be "
                                  "saved apart", hint=f"leave {suffix!r} out of train.lora_modules")
        found += [name for name in matches if name not in found]
    return found


@dataclass
class LoraAdapters:
    """The adapters of one model: which layers carry them and with what settings."""

    layers: list[str]  # full names of the adapted linear layers
    rank: int
    alpha: float
    dropout: float
    keys: list[str]  # the adapter parameters' names in the model (what the optimizer holds)

    @classmethod
    def add(cls, model: Any, *, rank: int, alpha: float, dropout: float, modules: tuple[str, ...] | list[str],
            seed: int) -> "LoraAdapters":
        """Put adapters into ``model`` in place and freeze everything else. ``A`` is drawn from
        ``seed`` alone (every process the same, the global random state untouched)."""
        require_peft()
        from peft import LoraConfig, inject_adapter_in_model

        layers = adapted_layers(model, modules)
        alpha = resolved_alpha(rank, alpha)
        config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=layers, bias="none")
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            inject_adapter_in_model(config, model, adapter_name=ADAPTER_NAME)
        for param in model.parameters():  # peft freezes the rest too; done here so it does not hang on its defaults
            param.requires_grad_(False)
        keys = []
        for name, param in model.named_parameters():
            if ".lora_" in name:
                param.requires_grad_(True)
                keys.append(name)
        return cls(layers=layers, rank=rank, alpha=alpha, dropout=dropout, keys=keys)

    def summary(self, model: Any) -> dict[str, Any]:
        """For the training log: the settings and how many parameters train, of how many in all
        (the base model's plus the adapters')."""
        params = dict(model.named_parameters())
        return {"rank": self.rank, "alpha": self.alpha, "dropout": self.dropout, "layers": len(self.layers),
                "trainable": sum(params[k].numel() for k in self.keys),
                "total": sum(p.numel() for p in params.values())}

    def adapter_state(self, model: Any) -> dict[str, torch.Tensor]:
        params = dict(model.named_parameters())
        return {key: params[key].detach() for key in self.keys}

    def merged_state(self, model: Any) -> dict[str, torch.Tensor]:
        """The model's state dict as the model without adapters names it, each adapted layer's
        weight replaced by ``W + scale · B A`` (new tensors: the live model is not changed)."""
        modules = dict(model.named_modules())
        state = {}
        for key, tensor in model.state_dict().items():
            if ".lora_" in key:
                continue
            state[key.replace(".base_layer.", ".")] = tensor
        with torch.no_grad():
            for name in self.layers:
                layer = modules[name]
                base = layer.base_layer.weight
                state[f"{name}.weight"] = (base + layer.get_delta_weight(ADAPTER_NAME).to(base.dtype)).detach()
        return state

    def save(self, model: Any, folder: Path) -> None:
        """``model.safetensors`` (+ config) with the merged weights, and the adapters beside it."""
        from safetensors.torch import save_file

        model.save_pretrained(folder, state_dict=self.merged_state(model))
        tensors = {key: tensor.contiguous().cpu() for key, tensor in self.adapter_state(model).items()}
        save_file(tensors, str(folder / ADAPTER_FILE),
                  metadata={"rank": str(self.rank), "alpha": repr(self.alpha), "dropout": repr(self.dropout),
                            "layers": ",".join(self.layers)})

    def read(self, folder: Path, model: Any) -> dict[str, torch.Tensor]:
        """A checkpoint's adapters, checked to be ``model``'s (the same names and shapes) before
        anything is loaded."""
        from safetensors.torch import load_file

        path = folder / ADAPTER_FILE
        if not path.is_file():
            raise CheckpointError(f"{ADAPTER_FILE} is missing: the checkpoint holds no LoRA adapters to resume from")
        tensors = load_file(str(path))
        params = dict(model.named_parameters())
        if sorted(tensors) != sorted(self.keys):
            missing = sorted(set(self.keys) - set(tensors))[:3]
            raise CheckpointError(f"{ADAPTER_FILE} holds other adapters than this run's "
                                  f"(missing e.g. {', '.join(missing) or '-'})")
        for key, tensor in tensors.items():
            if params[key].shape != tensor.shape:
                raise CheckpointError(f"{ADAPTER_FILE}: {key} has shape {tuple(tensor.shape)}, this run's adapter "
                                      f"{tuple(params[key].shape)}")
        return tensors

    def load(self, model: Any, tensors: dict[str, torch.Tensor]) -> None:
        params = dict(model.named_parameters())
        with torch.no_grad():
            for key, tensor in tensors.items():
                params[key].copy_(tensor)
