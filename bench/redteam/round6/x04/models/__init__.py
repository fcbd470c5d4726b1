from .backbone import Backbone
