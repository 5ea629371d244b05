"""Default benchmark and judge settings, shared by the classic environment and the v1 taskset."""

DEFAULT_DATASET = "HuggingFaceSwarms/SmolTalkBench"
DEFAULT_JUDGE_MODEL = "deepseek-ai/DeepSeek-V4.1-Flash"
DEFAULT_JUDGE_BASE_URL = "https://router.huggingface.co/v1"
DEFAULT_JUDGE_API_KEY_VAR = "HF_TOKEN"
