"""The SentEval-equivalent evaluation harness: ``evaluate(encoder, tasks, config)``."""
from reproducer.evaluate.harness import Results, encode_unique, evaluate, evaluate_per_task, sentences_of
from reproducer.evaluate.tasks import CONFIGS, TASKS, EvalConfig, Task, quick_look, resolve_tasks

__all__ = ["CONFIGS", "TASKS", "EvalConfig", "Results", "Task", "encode_unique", "evaluate", "evaluate_per_task",
           "quick_look", "resolve_tasks", "sentences_of"]
