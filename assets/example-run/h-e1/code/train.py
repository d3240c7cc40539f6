import json
print(json.dumps({"step": 11200, "test_accuracy": 0.991}))
