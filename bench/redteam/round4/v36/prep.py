import json
print(json.dumps({'ok': True}))
